import { execFileSync } from 'node:child_process';

/** The commit measured, so figures can be compared after the code changes ("-dirty": uncommitted changes). */
export function measuredCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
    return head + (dirty ? '-dirty' : '');
  } catch {
    return 'unknown';
  }
}
