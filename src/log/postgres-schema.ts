// The PostgreSQL event table: append-only by construction. Rows carry the frame's parts
// (prev, hash, the exact msgpack body) plus type, namespace and timestamp for filtered reads.
// A trigger refuses UPDATE, DELETE and TRUNCATE even for the table's owner; the role Kioku
// runs as needs only SELECT and INSERT (see grantStatements and docs/deployment.md).
// Beside it, the data keys of sealing (issue 33, crypto-shredding: src/log/postgres-keys.ts): one
// row per key, which the node role may INSERT, SELECT and DELETE — a purge really deletes the key
// material, while the events stay append-only.

export interface TableNames {
  schema: string;
  /** qualified table name */
  table: string;
  /** the NOTIFY channel commits are announced on */
  channel: string;
}

/** the qualified name of the data keys table beside `n`'s event table */
export function keysTable(n: TableNames): string {
  return `"${n.schema}".kioku_keys`;
}

/**
 * The data keys table: `id` orders rows as they were committed (keys are inserted only under the
 * append lock, with the events they sealed), so a node reads the keys it lacks with `id > last`.
 */
export function keysSchemaStatements(n: TableNames): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${keysTable(n)} (
       id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       kid text NOT NULL UNIQUE CHECK (kid ~ '^[0-9a-f]{16}$'),
       ns text NOT NULL,
       unit text NOT NULL,
       key bytea NOT NULL CHECK (octet_length(key) = 32),
       created timestamptz NOT NULL DEFAULT now()
     )`,
    `CREATE INDEX IF NOT EXISTS kioku_keys_ns ON ${keysTable(n)} (ns)`,
  ];
}

export function schemaStatements(n: TableNames): string[] {
  const fn = `"${n.schema}".kioku_events_refuse`;
  return [
    `CREATE SCHEMA IF NOT EXISTS "${n.schema}"`,
    `CREATE TABLE IF NOT EXISTS ${n.table} (
       seq bigint PRIMARY KEY CHECK (seq >= 1),
       prev bytea NOT NULL CHECK (octet_length(prev) = 32),
       hash bytea NOT NULL CHECK (octet_length(hash) = 32),
       body bytea NOT NULL,
       type text NOT NULL,
       ns text NOT NULL,
       ts bigint NOT NULL
     )`,
    `CREATE INDEX IF NOT EXISTS kioku_events_type_seq ON ${n.table} (type, seq)`,
    `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       RAISE EXCEPTION 'kioku_events is append-only: % refused', TG_OP USING ERRCODE = '42501';
     END $$`,
    `CREATE OR REPLACE TRIGGER kioku_events_no_change BEFORE UPDATE OR DELETE ON ${n.table} FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
    `CREATE OR REPLACE TRIGGER kioku_events_no_truncate BEFORE TRUNCATE ON ${n.table} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
    ...keysSchemaStatements(n),
  ];
}

/** What an administrator runs so that `role` may use the store and nothing more (append events; add, read and delete data keys). */
export function grantStatements(n: TableNames, role: string): string[] {
  const r = `"${role.replace(/"/g, '""')}"`;
  return [
    `GRANT USAGE ON SCHEMA "${n.schema}" TO ${r}`,
    `REVOKE ALL ON ${n.table} FROM ${r}`,
    `GRANT SELECT, INSERT ON ${n.table} TO ${r}`,
    // the data keys: a purge deletes rows (crypto-shredding); no UPDATE, so a key is never swapped
    `REVOKE ALL ON ${keysTable(n)} FROM ${r}`,
    `GRANT SELECT, INSERT, DELETE ON ${keysTable(n)} TO ${r}`,
  ];
}
