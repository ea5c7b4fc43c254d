/**
 * What a SQL span says of its statement (platform/tracing/sql-spans.ts): its literals replaced by
 * `?` (a value written into the text, not sent as a parameter, never reaches a span), its
 * placeholders, identifiers and casts kept, its length bounded; its name the verb and first table.
 */
import {
  DESCRIPTIONS_MAX_CHARS,
  DESCRIPTIONS_MAX_ENTRIES,
  describedStatement,
  describedStatementsHeld,
  MAX_SQL_TEXT,
  normalizedSql,
  sqlSpanName,
} from '../../src/platform/tracing/sql-spans';

describe('SQL text in spans', () => {
  it('replaces string, dollar-quoted and numeric literals, keeps placeholders, identifiers and casts', () => {
    expect(
      normalizedSql(`SELECT "t1".id, data->>'email' FROM reports AS t1
        WHERE t1.email = 'jeanne@example.com' AND t1.phone = '+33612345678' AND n > 42 AND x < -1.5e3
          AND y = $1::uuid AND body = $tag$it's Jeanne$tag$ AND z = $$plain$$ LIMIT 100`),
    ).toBe(
      `SELECT "t1".id, data->>? FROM reports AS t1 WHERE t1.email = ? AND t1.phone = ? AND n > ? AND x < ? AND y = $1::uuid AND body = ? AND z = ? LIMIT ?`,
    );
    expect(normalizedSql(`SELECT 'it''s' , 'a'`)).toBe('SELECT ? , ?');
  });

  it(`keeps at most ${MAX_SQL_TEXT} characters`, () => {
    const long = normalizedSql(`SELECT ${'column_name, '.repeat(1_000)}x FROM reports`);
    expect(long.length).toBe(MAX_SQL_TEXT + 1);
    expect(long.endsWith('…')).toBe(true);
  });

  it('keeps nothing of a literal that runs past the part of a long statement it reads', () => {
    const cut = normalizedSql(`SELECT ${'c, '.repeat(100)} '${'jeanne@example.com '.repeat(1_000)}' AS x, $1 FROM reports`);
    expect(cut).not.toMatch(/jeanne/);
    expect(cut).toBe(`SELECT ${'c, '.repeat(100)}?…`);
    const dollar = normalizedSql(`SELECT ${'c, '.repeat(100)} $q$${'jeanne '.repeat(3_000)}$q$ FROM reports`);
    expect(dollar).not.toMatch(/jeanne/);
  });

  it('is named by its verb and first table', () => {
    expect(sqlSpanName('SELECT r.token FROM "public"."reports" r JOIN dealerships d ON true')).toBe('SELECT reports');
    expect(sqlSpanName('insert into "notification_outbox" (id) values ($1)')).toBe('INSERT notification_outbox');
    expect(sqlSpanName('UPDATE webhook_endpoints SET x = 1')).toBe('UPDATE webhook_endpoints');
    expect(sqlSpanName('  (WITH horizon AS (SELECT 1) SELECT 2)')).toBe('WITH');
    expect(sqlSpanName('BEGIN')).toBe('BEGIN');
  });

  it('works a text out once, and holds a bounded number of texts and characters whatever is sent', () => {
    const text = `SELECT token FROM reports WHERE organization_id = $1 AND kind = 'lead'`;
    const first = describedStatement(text);
    expect(first).toEqual({
      name: 'SELECT reports',
      attributes: { 'db.system.name': 'postgresql', 'db.operation.name': 'SELECT', 'db.query.text': normalizedSql(text) },
    });
    expect(describedStatement(text)).toBe(first);
    // Many distinct texts (as distinct documents make distinct answer plans), small then large.
    for (let i = 0; i < 3 * DESCRIPTIONS_MAX_ENTRIES; i += 1) describedStatement(`SELECT ${i} AS n FROM reports`);
    expect(describedStatementsHeld().entries).toBeLessThanOrEqual(DESCRIPTIONS_MAX_ENTRIES);
    const large = 'x, '.repeat(20_000);
    for (let i = 0; i < 100; i += 1) describedStatement(`SELECT ${i}, ${large} FROM reports`);
    const held = describedStatementsHeld();
    expect(held.chars).toBeLessThanOrEqual(DESCRIPTIONS_MAX_CHARS);
    expect(held.chars).toBeGreaterThan(DESCRIPTIONS_MAX_CHARS / 2);
  });
});
