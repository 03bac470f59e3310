// The same API suite on both stores: embedded node:sqlite (in memory) and a real PostgreSQL server (a
// throwaway cluster started for this file, installed from Debian's packages when missing).
import { startThrowawayPostgres } from '../../../tools/lib/postgres.ts';
import { startSandbox } from '../src/sandbox.ts';
import { apiSuite } from './api-suite.ts';

apiSuite('node:sqlite', () => startSandbox({}));

let pg: Awaited<ReturnType<typeof startThrowawayPostgres>> | undefined;
apiSuite('PostgreSQL', async () => {
  pg = await startThrowawayPostgres();
  const sandbox = await startSandbox({ databaseUrl: pg.url });
  return {
    ...sandbox,
    async close() {
      await sandbox.close();
      await pg?.stop();
    },
  };
});
