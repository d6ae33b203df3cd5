// Keeps better-sqlite3's compiled addon in npm's cache, where its installer (prebuild-install) looks for a
// downloaded prebuild before it downloads: with no route to GitHub here, every `npm ci` otherwise compiles
// SQLite from source (about a minute of both CPUs). The cache entry is named by prebuild-install's own
// download URL, which carries the package version, the Node ABI, the platform, libc and the architecture, so
// a different Node or version of the package never reads it. Run after `npm ci` (.ci/run).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(join(process.cwd(), 'node_modules', 'better-sqlite3', 'package.json'));
const pkgDir = dirname(require.resolve('better-sqlite3/package.json'));
const addon = join(pkgDir, 'build', 'Release', 'better_sqlite3.node');
if (!existsSync(addon)) process.exit(0);
const util = require('prebuild-install/util');
const pkg = require('better-sqlite3/package.json');
// rc() reads its options from the environment and argv as prebuild-install does when npm runs it.
process.argv = process.argv.slice(0, 2);
const opts = { ...require('prebuild-install/rc')(pkg), pkg };
const cached = util.cachedPrebuild(util.getDownloadUrl(opts));
if (existsSync(cached)) process.exit(0);
mkdirSync(dirname(cached), { recursive: true });
const tmp = `${cached}.${process.pid}.tmp`;
execFileSync('tar', ['-czf', tmp, '-C', pkgDir, 'build/Release/better_sqlite3.node']);
renameSync(tmp, cached);
console.log(`kept better-sqlite3's build for later installs: ${cached}`);
