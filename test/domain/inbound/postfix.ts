// A private Postfix instance for the real-MTA bounce test: its own config and queue directories under a
// temp dir, listening on 127.0.0.1:<port>, final destination for one test domain, and routing mail for the
// return-path domain to mailroom's inbound listener. No chroot, no system files touched. Needs root (the
// master process runs as root and drops to the postfix user) and the Debian postfix package
// (scripts/setup.sh installs it).
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const POSTFIX = '/usr/sbin/postfix';

export interface PostfixInstance {
  port: number;
  log(): string;
  stop(): Promise<void>;
}

export interface PostfixOptions {
  port: number;
  /** The domain Postfix delivers locally (unknown users there bounce after acceptance). */
  destination: string;
  /** Mail for this domain goes to [127.0.0.1]:relayPort (mailroom's bounce listener). */
  relayDomain: string;
  relayPort: number;
  /** Postfix's smtp_tls_security_level toward mailroom: `encrypt` makes STARTTLS mandatory (default none). */
  smtpTlsLevel?: 'none' | 'may' | 'encrypt';
}

/** Why Postfix cannot run here, or null when it can. */
export function postfixUnavailable(): string | null {
  if (!existsSync(POSTFIX)) return `${POSTFIX} is not installed (run scripts/setup.sh as root to install the Debian postfix package)`;
  if (process.getuid?.() !== 0) return 'starting a Postfix instance needs root (its master process runs as root)';
  try {
    execFileSync('id', ['postfix'], { stdio: 'ignore' });
  } catch {
    return 'the postfix system user does not exist (the Debian package creates it)';
  }
  return null;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

const SERVICES = `
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
local     unix  -       n       n       -       -       local
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
`;

async function listening(port: number, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = connect(port, '127.0.0.1');
      c.once('connect', () => {
        c.destroy();
        resolve(true);
      });
      c.once('error', () => resolve(false));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

export async function startPostfix(o: PostfixOptions): Promise<PostfixInstance> {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-postfix-'));
  // Postfix daemons run as the postfix user and must reach the queue below this directory.
  chmodSync(dir, 0o755);
  const conf = join(dir, 'etc');
  mkdirSync(conf);
  mkdirSync(join(dir, 'queue'));
  mkdirSync(join(dir, 'data'));
  execFileSync('chown', ['postfix', join(dir, 'data')]);
  const logFile = join(dir, 'maillog');
  writeFileSync(join(conf, 'transport'), `${o.relayDomain} smtp:[127.0.0.1]:${o.relayPort}\n`);
  writeFileSync(
    join(conf, 'main.cf'),
    [
      'compatibility_level = 3.6',
      `queue_directory = ${join(dir, 'queue')}`,
      `data_directory = ${join(dir, 'data')}`,
      'mail_owner = postfix',
      'setgid_group = postdrop',
      'myhostname = mx.postfix-test.example',
      `mydestination = ${o.destination}`,
      'myorigin = $myhostname',
      'inet_interfaces = 127.0.0.1',
      'inet_protocols = ipv4',
      'mynetworks = 127.0.0.0/8',
      // No recipient table: any local part is accepted at RCPT time and local(8) bounces unknown users
      // afterwards, so the DSN comes from Postfix itself.
      'local_recipient_maps =',
      'alias_maps =',
      'alias_database =',
      `transport_maps = texthash:${join(conf, 'transport')}`,
      `smtp_tls_security_level = ${o.smtpTlsLevel ?? 'none'}`,
      // One line per TLS session in the log ("... TLS connection established to ..."), for the tests.
      'smtp_tls_loglevel = 1',
      'smtpd_tls_security_level = none',
      'smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination',
      'smtp_host_lookup = native',
      'biff = no',
      'delay_warning_time = 0',
      `maillog_file = ${logFile}`,
      `maillog_file_prefixes = ${dir}`,
      'queue_run_delay = 1s',
      'minimal_backoff_time = 1s',
      'maximal_backoff_time = 2s',
      '',
    ].join('\n'),
  );
  // tlsmgr(8) seeds the TLS engine's random pool and caches sessions; without it smtp(8) disables TLS.
  const tlsmgr = (o.smtpTlsLevel ?? 'none') === 'none' ? '' : 'tlsmgr    unix  -       -       n       1000?   1       tlsmgr\n';
  writeFileSync(join(conf, 'master.cf'), `127.0.0.1:${o.port} inet n - n - - smtpd\n${SERVICES}${tlsmgr}`);
  const env = { ...process.env, MAIL_CONFIG: conf };
  try {
    execFileSync(POSTFIX, ['-c', conf, 'start'], { env, stdio: 'pipe' });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const e = err as { stderr?: Buffer };
    throw new Error(`postfix start failed: ${e.stderr?.toString() ?? String(err)}`);
  }
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  if (!(await listening(o.port, Date.now() + 15_000))) throw new Error(`Postfix did not listen on ${o.port}:\n${log()}`);
  return {
    port: o.port,
    log,
    async stop() {
      try {
        execFileSync(POSTFIX, ['-c', conf, 'stop'], { env, stdio: 'ignore' });
      } catch {
        /* already stopped */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
