import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface BuildInfo {
  readonly version: string;
  readonly commit: string;
  readonly builtAt: string;
}

/** Version from package.json, commit from CI or git ("unknown" outside a checkout). */
export function readBuildInfo(root: string): BuildInfo {
  const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { version: string };
  let commit = process.env.NEUROEVAL_COMMIT ?? process.env.GITHUB_SHA ?? '';
  if (!commit) {
    try {
      commit = execSync('git rev-parse HEAD', { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    } catch {
      commit = 'unknown';
    }
  }
  return { version: pkg.version, commit: commit.slice(0, 12), builtAt: new Date().toISOString() };
}
