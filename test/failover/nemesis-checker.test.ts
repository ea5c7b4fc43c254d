/**
 * The nemesis checker (loadtest/nemesis-checker.ts) on made-up histories: it must catch each
 * violation it exists for, and pass a clean history. What it judges for real is
 * test/failover/nemeses.test.ts.
 */
import { checkHistory, interleavedWriters, type HistoryOperation } from '../../loadtest/nemesis-checker';
import type { ProbeWrite } from '../../loadtest/write-probe';

const write = (key: string, sentAt: number, status: number, extra: Partial<HistoryOperation> = {}): HistoryOperation => ({
  kind: 'write',
  key,
  sentAt,
  answeredAt: sentAt + 10,
  status,
  retryAfter: status === 503 ? '5' : null,
  ...extra,
});
const probe = (node: string, seq: number, sentAt: number, ok = true): ProbeWrite => ({
  node,
  seq,
  sentAt,
  answeredAt: sentAt + 5,
  ok,
});

describe('nemesis checker', () => {
  const clean: HistoryOperation[] = [
    write('k1', 0, 201, { token: 't1' }),
    write('k2', 100, 503),
    write('k2', 400, 201, { token: 't2' }),
    { kind: 'read', sentAt: 50, answeredAt: 60, status: 200 },
    { kind: 'read', sentAt: 150, answeredAt: 160, status: 503, retryAfter: '5' },
  ];
  const finalReports = [
    { key: 'k1', tokens: ['t1'] },
    { key: 'k2', tokens: ['t2'] },
  ];

  it('passes a clean history, with its figures', () => {
    const { problems, figures } = checkHistory({
      operations: clean,
      finalReports,
      probes: [probe('pg-1', 1, 0), probe('pg-1', 2, 100), probe('pg-2', 3, 300), probe('pg-2', 4, 400)],
      probeRowsFound: new Set([1, 2, 3, 4]),
      faultAt: 50,
    });
    expect(problems).toEqual([]);
    expect(figures).toMatchObject({ acknowledged: 2, found: 2, duplicates: 0, answers503: 2, noAnswer: 0, probeAcknowledgedLost: 0 });
    expect(figures.longestWriteGapSeconds).toBeCloseTo(0.4, 5);
  });

  it('finds a lead answered 201 that is not in the final table, or with another token', () => {
    expect(checkHistory({ operations: clean, finalReports: [{ key: 'k1', tokens: ['t1'] }] }).problems).toEqual([
      expect.stringMatching(/lead k2 answered 201 \(t2\) is not in the final table/),
    ]);
    expect(
      checkHistory({
        operations: clean,
        finalReports: [
          { key: 'k1', tokens: ['t1'] },
          { key: 'k2', tokens: ['other'] },
        ],
      }).problems,
    ).toEqual([expect.stringMatching(/lead k2 answered 201/)]);
  });

  it('finds a key with two reports', () => {
    const { problems, figures } = checkHistory({
      operations: clean,
      finalReports: [finalReports[0]!, { key: 'k2', tokens: ['t2', 't3'] }],
    });
    expect(problems).toEqual([expect.stringMatching(/key k2 has 2 reports/)]);
    expect(figures.duplicates).toBe(1);
  });

  it('refuses any 5xx but 503, and a 503 without Retry-After; counts requests without an answer apart', () => {
    const { problems, figures } = checkHistory({
      operations: [
        ...clean,
        write('k3', 500, 500),
        write('k3', 600, 503, { retryAfter: null }),
        write('k3', 700, 502),
        write('k3', 800, 0, { failed: 'UND_ERR_SOCKET' }),
      ],
      finalReports,
    });
    expect(problems).toEqual([
      expect.stringMatching(/1 × write 500/),
      expect.stringMatching(/1 × write 503 without Retry-After/),
      expect.stringMatching(/1 × write 502/),
    ]);
    expect(figures.noAnswer).toBe(1);
  });

  it('finds two nodes accepting writes in the same interval (split brain), and acknowledged direct writes lost', () => {
    // pg-1 acknowledges, then pg-2, then pg-1 again: pg-1 was still a primary after pg-2 became one.
    const probes = [probe('pg-1', 1, 0), probe('pg-2', 2, 100), probe('pg-1', 3, 200), probe('pg-2', 4, 300, false)];
    expect(interleavedWriters(probes)).toEqual([expect.stringMatching(/pg-1 acknowledged writes before and after pg-2's write #2/)]);
    const { problems, figures } = checkHistory({ operations: clean, finalReports, probes, probeRowsFound: new Set([2]) });
    expect(problems).toEqual([
      expect.stringMatching(/pg-1 acknowledged writes before and after/),
      expect.stringMatching(/2 writes acknowledged by a node \(write probe\) are not in the final table/),
    ]);
    expect(figures.probeAcknowledgedByNode).toEqual({ 'pg-1': 2, 'pg-2': 1 });
  });

  it('does not call overlapping windows a split brain: a write whose window overlaps the switch proves nothing', () => {
    // pg-1's last write was sent before pg-2's write was answered: the two may have committed in either order.
    const probes: ProbeWrite[] = [
      probe('pg-1', 1, 0),
      { node: 'pg-2', seq: 2, sentAt: 100, answeredAt: 300, ok: true },
      { node: 'pg-1', seq: 3, sentAt: 250, answeredAt: 400, ok: true },
    ];
    expect(interleavedWriters(probes)).toEqual([]);
  });
});
