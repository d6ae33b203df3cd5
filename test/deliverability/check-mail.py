# Checks delivered messages with tools mailroom did not write (the deliverability tier,
# test/deliverability/deliverability.test.ts): Python's strict parser (email.policy.strict) and dkimpy.
# argv: a JSON file {"records": {"sel._domainkey.d": "v=DKIM1; ..."}, "files": [path, ...]}.
# Prints one JSON object per file: defects, whether every DKIM signature verifies, and whether a copy with
# one body byte changed still verifies (it must not).
import email
import email.policy
import json
import sys

import dkim

spec = json.load(open(sys.argv[1]))
records = spec["records"]


def dnsfunc(name, timeout=5):
    key = name.decode() if isinstance(name, bytes) else name
    value = records.get(key.rstrip("."))
    return value.encode() if value else None


def verify_all(raw):
    d = dkim.DKIM(raw)
    try:
        d.verify(dnsfunc=dnsfunc)  # parses the headers
    except dkim.DKIMException:
        return False
    sigs = [h for h in d.headers if h[0].lower() == b"dkim-signature"]
    try:
        return len(sigs) > 0 and all(d.verify(idx=i, dnsfunc=dnsfunc) for i in range(len(sigs)))
    except dkim.DKIMException:
        return False


for path in spec["files"]:
    raw = open(path, "rb").read()
    defects = []
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.strict)
        for part in msg.walk():
            defects += [type(x).__name__ for x in part.defects]
            for k, v in part.items():
                defects += [type(x).__name__ for x in getattr(v, "defects", [])]
    except Exception as e:  # strict raises on the first defect
        defects.append(f"{type(e).__name__}: {e}")
    head, _, body = raw.partition(b"\r\n\r\n")
    tampered = head + b"\r\n\r\n" + (body[:-3] + b"X" + body[-2:] if len(body) > 3 else b"X")
    print(json.dumps({"file": path, "defects": defects, "dkim": verify_all(raw), "tampered": verify_all(tampered)}))
