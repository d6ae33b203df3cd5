// Preloaded (--import) by scripts/test.mjs into every test process: when a test file's process ends it
// appends one line to the file MAILROOM_TEST_FILE_TIMES names, with the process's wall time since it started
// (loading the modules included) and its CPU time (all its threads; not that of the programs it starts).
// The runner reads these to print a tier's slowest files and how busy it kept the CPUs.
import { appendFileSync } from 'node:fs';

const out = process.env.MAILROOM_TEST_FILE_TIMES;
// NODE_TEST_CONTEXT and the name: a test file's own process, not the runner that starts them nor a program a
// test starts (which inherits the environment).
if (out && process.env.NODE_TEST_CONTEXT && /\.test\.[jt]s$/.test(process.argv[1] ?? '')) {
  process.on('exit', () => {
    const cpu = process.cpuUsage();
    const line = { file: process.argv[1], wallMs: Math.round(process.uptime() * 1000), cpuMs: Math.round((cpu.user + cpu.system) / 1000) };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
