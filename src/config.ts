// Where Kioku keeps things. One data dir (default ~/.kioku, KIOKU_DATA_DIR, --data).
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export interface KiokuPaths {
  dataDir: string;
  /** LevelDB holding the log */
  logDir: string;
  /** projection snapshots, one folder per projection */
  projectionsDir: string;
  /** signed checkpoints, one JSON object per line */
  anchorsFile: string;
  /** Ed25519 private key that signs anchors; never written into the log */
  anchorKeyFile: string;
}

export interface PathOverrides {
  data?: string | undefined;
  key?: string | undefined;
  anchors?: string | undefined;
}

export function resolvePaths(overrides: PathOverrides = {}, env: NodeJS.ProcessEnv = process.env): KiokuPaths {
  const dataDir = resolve(overrides.data ?? env['KIOKU_DATA_DIR'] ?? join(homedir(), '.kioku'));
  return {
    dataDir,
    logDir: join(dataDir, 'log'),
    projectionsDir: join(dataDir, 'projections'),
    anchorsFile: resolve(overrides.anchors ?? env['KIOKU_ANCHORS_FILE'] ?? join(dataDir, 'anchors.jsonl')),
    anchorKeyFile: resolve(overrides.key ?? env['KIOKU_ANCHOR_KEY'] ?? join(dataDir, 'keys', 'anchor-ed25519.pem')),
  };
}
