import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The folder holding package.json: the same whether this code runs from src/ (tsx, jest) or
 * compiled from dist/src/ (the Docker image).
 */
function findProjectRoot(start: string): string {
  let dir = start;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = findProjectRoot(__dirname);
