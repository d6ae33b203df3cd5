# django-anymail's Postmark backend (Debian python3-django-anymail with python3-django) pointed at mailroom
# the way a Django project's settings do it: EMAIL_BACKEND and ANYMAIL's POSTMARK_API_URL. Sends a message
# with attachments (one inline), a tag, metadata, a header of its own and its own Message-ID kept with
# X-PM-KeepID, then a template send. One JSON line per step; django-anymail.test.ts asserts on them and on
# what mailroom delivered. Settings: MR_URL, MR_SERVER_TOKEN.
import base64
import json
import os

import django
from django.conf import settings

settings.configure(
    EMAIL_BACKEND="anymail.backends.postmark.EmailBackend",
    ANYMAIL={"POSTMARK_SERVER_TOKEN": os.environ["MR_SERVER_TOKEN"], "POSTMARK_API_URL": os.environ["MR_URL"] + "/"},
    DEFAULT_FROM_EMAIL="Shop <sender@example.com>",
)
django.setup()

from anymail.message import AnymailMessage, attach_inline_image  # noqa: E402

GIF = base64.b64decode("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==")


def step(name, fn):
    try:
        out = fn()
    except Exception as e:  # the client's own error, shown by the test
        out = {"error": f"{type(e).__name__}: {e}"[:2000]}
    print(json.dumps({"step": name, **out}), flush=True)


def send():
    msg = AnymailMessage(
        subject="Django anymail",
        body="Your order shipped.",
        to=["reader@dest.example"],
        headers={"Message-ID": "<order-44@shop.example>", "X-PM-KeepID": "true", "X-Order": "42"},
    )
    cid = attach_inline_image(msg, GIF, filename="logo.gif")
    msg.attach_alternative(f'<p>Your order shipped.</p><img src="cid:{cid}">', "text/html")
    msg.attach("invoice.pdf", b"%PDF-1.4 invoice", "application/pdf")
    msg.tags = ["shipping"]
    msg.metadata = {"orderId": "42"}
    msg.send()
    status = msg.anymail_status
    return {"message_id": status.message_id, "status": sorted(status.status), "cid": cid}


def template():
    msg = AnymailMessage(to=["reader@dest.example"])
    msg.template_id = "django-welcome"
    msg.merge_global_data = {"name": "Ann"}
    msg.tags = ["welcome"]
    msg.send()
    status = msg.anymail_status
    return {"message_id": status.message_id, "status": sorted(status.status)}


step("send", send)
step("template", template)
