import { LookupConfigError } from './errors';

export type SqlDialectName = 'postgres' | 'mysql';

export interface PreparedSelect {
  /** The query with each placeholder replaced by a bound parameter ($n or ?), without a trailing semicolon. */
  text: string;
  /** The identifier type of each bound parameter, in parameter order ($1, $2… or each ?). */
  parameterTypes: string[];
  /** The identifier types of the placeholders, in the order they first appear in the query. */
  placeholderTypes: string[];
}

// Words that have no place in a read-only SELECT: other statements, SELECT … INTO, row locks.
const FORBIDDEN_WORDS = new Set([
  'insert',
  'update',
  'delete',
  'merge',
  'upsert',
  'truncate',
  'drop',
  'alter',
  'create',
  'rename',
  'grant',
  'revoke',
  'into',
  'copy',
  'call',
  'do',
  'exec',
  'execute',
  'prepare',
  'deallocate',
  'lock',
  'unlock',
  'share',
  'set',
  'reset',
  'handler',
  'load',
  'outfile',
  'dumpfile',
  'procedure',
  'vacuum',
  'analyze',
  'reindex',
  'cluster',
  'listen',
  'notify',
  'begin',
  'commit',
  'rollback',
  'savepoint',
  'release',
  'kill',
  'shutdown',
  'flush',
  'purge',
  'install',
  'uninstall',
]);

// Functions that change state the read-only transaction does not cover (files, WAL, locks, sessions) or read the server's files.
const FORBIDDEN_FUNCTIONS = new Set([
  'set_config',
  'nextval',
  'setval',
  'dblink',
  'dblink_exec',
  'dblink_connect',
  'dblink_send_query',
  'pg_terminate_backend',
  'pg_cancel_backend',
  'pg_reload_conf',
  'pg_rotate_logfile',
  'pg_read_file',
  'pg_read_binary_file',
  'pg_ls_dir',
  'pg_stat_file',
  'pg_notify',
  'pg_advisory_lock',
  'pg_advisory_xact_lock',
  'pg_try_advisory_lock',
  'pg_try_advisory_xact_lock',
  'pg_file_write',
  'pg_file_rename',
  'pg_file_unlink',
  'pg_switch_wal',
  'pg_promote',
  'pg_create_restore_point',
  'pg_create_logical_replication_slot',
  'pg_create_physical_replication_slot',
  'pg_drop_replication_slot',
  'pg_logical_emit_message',
  'lo_import',
  'lo_export',
  'lo_unlink',
  'lo_create',
  'lo_from_bytea',
  'lo_put',
  'query_to_xml',
  'query_to_xml_and_xmlschema',
  'load_file',
  'get_lock',
  'release_lock',
  'release_all_locks',
  'sys_exec',
  'sys_eval',
]);

const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

interface Word {
  text: string;
  quoted: boolean;
  /** Where the word ends in the source, to see whether a "(" follows (a function call). */
  end: number;
}

const refuse = (message: string): never => {
  throw new LookupConfigError('query', message);
};

/** Reads a quoted run from `start` (a doubled quote stays inside); returns its content and the index after it. */
function readQuoted(query: string, start: number, quote: string): { content: string; next: number } {
  let i = start + 1;
  let content = '';
  for (;;) {
    const close = query.indexOf(quote, i);
    if (close < 0) refuse('The query has an unterminated quote');
    content += query.slice(i, close);
    if (query[close + 1] === quote) {
      content += quote;
      i = close + 2;
    } else return { content, next: close + 1 };
  }
}

/**
 * Checks that `query` is one read-only SELECT and turns its `{{type}}` placeholders into bound
 * parameters. Conservative on purpose: comments, backslashes, `$`, MySQL user variables and
 * positional `?` are refused outright, since each can hide a second statement or a write from a
 * reader of the text; the read-only transaction the query runs in is the second line of defence.
 * `knownTypes` null skips the check of placeholder types (at run time, the types were checked at save).
 */
export function prepareSelect(query: string, dialect: SqlDialectName, knownTypes: string[] | null): PreparedSelect {
  const mysql = dialect === 'mysql';
  // A backslash escapes a quote in MySQL strings and PostgreSQL E'' strings: this reader would lose track of where a string ends.
  if (query.includes('\\')) refuse('The character \\ is not accepted in a lookup query');
  const words: Word[] = [];
  const placeholderTypes: string[] = [];
  const parameterTypes: string[] = [];
  let text = '';
  let i = 0;
  while (i < query.length) {
    const c = query[i]!;
    if (query.startsWith('{{', i)) {
      const close = query.indexOf('}}', i + 2);
      if (close < 0) refuse('A placeholder is not closed with }}');
      const type = query.slice(i + 2, close).trim();
      if (!PLACEHOLDER_NAME.test(type)) refuse('A placeholder must name an identifier type, as {{email}}');
      if (knownTypes && !knownTypes.includes(type)) refuse(`The placeholder {{${type}}} names no identifier type`);
      if (!placeholderTypes.includes(type)) placeholderTypes.push(type);
      if (mysql) {
        parameterTypes.push(type);
        text += '?';
      } else {
        if (!parameterTypes.includes(type)) parameterTypes.push(type);
        text += `$${parameterTypes.indexOf(type) + 1}`;
      }
      // Keeps `{{email}}foo` from reading as one word with what follows.
      words.push({ text: '', quoted: true, end: text.length });
      i = close + 2;
    } else if (c === "'" || (mysql && c === '"')) {
      const { content, next } = readQuoted(query, i, c);
      if (content.includes('{{')) refuse("Placeholders go outside quotes: write = {{email}}, not = '{{email}}'");
      text += query.slice(i, next);
      i = next;
    } else if ((!mysql && c === '"') || (mysql && c === '`')) {
      const { content, next } = readQuoted(query, i, c);
      text += query.slice(i, next);
      words.push({ text: content.toLowerCase(), quoted: true, end: text.length });
      i = next;
    } else if (query.startsWith('--', i) || query.startsWith('/*', i) || (mysql && c === '#')) {
      refuse('Comments are not accepted in a lookup query');
    } else if (c === ';') {
      if (query.slice(i + 1).trim() !== '') refuse('A lookup query is one statement: nothing may follow a semicolon');
      i = query.length;
    } else if (c === '$' || c === '`' || (mysql && (c === '?' || c === '@'))) {
      refuse(`The character ${c} is not accepted in a lookup query outside quotes`);
    } else if (mysql && query.startsWith(':=', i)) {
      refuse('Assignments (:=) are not accepted in a lookup query');
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(query.slice(i))![0];
      text += word;
      words.push({ text: word.toLowerCase(), quoted: false, end: text.length });
      i += word.length;
    } else {
      text += c;
      i++;
    }
  }
  if (words[0]?.text !== 'select' || words[0].quoted || text.trimStart().slice(0, 6).toLowerCase() !== 'select')
    refuse('A lookup query is a single SELECT statement');
  for (const word of words) {
    if (!word.quoted && FORBIDDEN_WORDS.has(word.text))
      refuse(`A lookup query only reads: ${word.text.toUpperCase()} is not accepted`);
    if (FORBIDDEN_FUNCTIONS.has(word.text) && text.slice(word.end).trimStart().startsWith('('))
      refuse(`A lookup query only reads: the function ${word.text} is not accepted`);
  }
  if (placeholderTypes.length === 0) refuse('The query needs at least one placeholder, as {{email}}');
  return { text: text.trim(), parameterTypes, placeholderTypes };
}
