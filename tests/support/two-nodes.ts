// Two Kioku nodes (loopback servers, each with its own data dir) on one PostgreSQL database of a
// throwaway cluster: what the shared-store privacy tests start from.
import { tempDir } from '../helpers.js';
import { startTestServer, type TestServer } from '../server-helpers.js';
import { startPgCluster, type PgCluster } from './postgres.js';

export interface TwoNodes {
  cluster: PgCluster;
  url: string;
  a: TestServer;
  b: TestServer;
  /** stop both nodes and the cluster, and remove the data dirs */
  stop(): Promise<void>;
}

export async function startTwoNodes(database: string): Promise<TwoNodes> {
  const cluster = await startPgCluster();
  const dirs = [tempDir('kioku-node-a-'), tempDir('kioku-node-b-')] as const;
  const url = await cluster.createDatabase(database);
  const a = await startTestServer({ store: url, dir: dirs[0].path });
  const b = await startTestServer({ store: url, dir: dirs[1].path });
  return {
    cluster,
    url,
    a,
    b,
    async stop() {
      await a.stop();
      await b.stop();
      cluster.destroy();
      for (const d of dirs) d.cleanup();
    },
  };
}
