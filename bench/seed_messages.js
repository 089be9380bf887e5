#!/usr/bin/env node
// Seeds a gateway database with N messages (default 1,000,000) over 1,000 conversations, one
// second apart, inside SQLite itself (a recursive query), so a million rows take seconds.
//
//   node bench/seed_messages.js <path/to/gateway.db> [count]
import sqlite3 from 'sqlite3'

export function seedMessages(file, count = 1_000_000) {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, (openError) => {
      if (openError) return reject(openError)
      const sql = `
        PRAGMA busy_timeout = 10000;
        BEGIN;
        WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < 999)
        INSERT OR IGNORE INTO conversations (phone, state, unread_count, pinned, archived, category, created_at, last_message_at)
          SELECT printf('+3361%07d', n), 'open', 0, 0, 0, 'transactional', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z' FROM seq;
        WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ${count - 1})
        INSERT INTO messages (conversation_id, direction, category, phone, body, encoding, segments, status, attempts, created_at, updated_at)
          SELECT c.id, CASE WHEN n % 5 = 0 THEN 'in' ELSE 'out' END, 'transactional', c.phone,
                 'Seeded message number ' || n, 'gsm7', 1, CASE WHEN n % 5 = 0 THEN 'delivered' ELSE 'sent' END, 1,
                 strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01T00:00:00', '+' || n || ' seconds'),
                 strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01T00:00:00', '+' || n || ' seconds')
          FROM seq JOIN conversations c ON c.phone = printf('+3361%07d', n % 1000);
        COMMIT;
        PRAGMA wal_checkpoint(TRUNCATE);`
      db.exec(sql, (error) => db.close(() => (error ? reject(error) : resolve(count))))
    })
  })
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, count] = process.argv.slice(2)
  if (!file) {
    console.error('usage: node bench/seed_messages.js <path/to/gateway.db> [count]')
    process.exit(1)
  }
  const started = Date.now()
  await seedMessages(file, Number(count ?? 1_000_000))
  console.log(`seeded ${count ?? 1_000_000} messages in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}
