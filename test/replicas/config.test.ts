import { loadConfig, serverDatabaseOptionsFrom, databaseOptionsFrom } from '../../src/app/config';

const PRIMARY = 'postgresql://vr@10.0.0.10:6432/vehicle_report?pgbouncer=true';

describe('replica and PgBouncer configuration', () => {
  it('DATABASE_REPLICA_URLS: a comma list, given to the server only; lag and check interval with defaults', () => {
    const config = loadConfig({
      DATABASE_URL: PRIMARY,
      DATABASE_DIRECT_URL: 'postgresql://vr@10.0.0.10:5432/vehicle_report',
      DATABASE_REPLICA_URLS: ' postgresql://vr@10.0.0.11/vehicle_report , postgres://vr@10.0.0.12:5433/vehicle_report,',
    });
    expect(config.databaseReplicaUrls).toEqual(['postgresql://vr@10.0.0.11/vehicle_report', 'postgres://vr@10.0.0.12:5433/vehicle_report']);
    expect(serverDatabaseOptionsFrom(config)).toMatchObject({
      url: PRIMARY,
      directUrl: 'postgresql://vr@10.0.0.10:5432/vehicle_report',
      replicaUrls: config.databaseReplicaUrls,
      replicaMaxLagMs: 5_000,
      replicaCheckIntervalMs: 1_000,
    });
    // The worker, CLI and migrator read and write the primary only.
    expect(databaseOptionsFrom(config).replicaUrls).toBeUndefined();
    expect(loadConfig({ DATABASE_URL: PRIMARY, REPLICA_MAX_LAG_MS: '250' }).replicaMaxLagMs).toBe(250);
  });

  it('refuses replicas without a PostgreSQL primary, and anything but postgresql:// URLs', () => {
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgresql://vr@10.0.0.11/vr' })).toThrow(/needs DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: PRIMARY, DATABASE_REPLICA_URLS: 'mysql://x@y/z' })).toThrow(/postgresql:\/\/ URLs/);
    expect(() => loadConfig({ DATABASE_URL: PRIMARY, REPLICA_MAX_LAG_MS: 'soon' })).toThrow(/REPLICA_MAX_LAG_MS/);
  });
});
