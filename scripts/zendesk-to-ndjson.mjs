#!/usr/bin/env node
// Converts Zendesk's ticket export JSON to this service's import format (docs/import.md), one ticket per line.
//
//   node scripts/zendesk-to-ndjson.mjs export.json [--prefix zendesk-] [--field 360001234=site ...] > tickets.ndjson
//
// The input is one JSON object as the Zendesk API returns it: `tickets` (GET /api/v2/tickets.json, or the incremental
// export), each with its `comments` (GET /api/v2/tickets/{id}/comments.json) added, and the `users` sideloaded with
// `?include=users` (their addresses name requesters, assignees, participants and comment authors). `--field` maps a
// Zendesk custom field's id to the key of a field defined here (GET /api/v2/fields); unmapped fields are left out.
// Warnings go to stderr; the lines to stdout.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const STATUS = { new: 'OPEN', open: 'OPEN', pending: 'WAITING_ON_CUSTOMER', hold: 'IN_PROGRESS', solved: 'RESOLVED', closed: 'CLOSED' };
const PRIORITY = { low: 'LOW', normal: 'MEDIUM', high: 'HIGH', urgent: 'CRITICAL' };
const LIMITS = { title: 255, description: 2000, comment: 10_000, tag: 64, tags: 50, ccEmails: 20 };

function usage(message) {
  if (message) process.stderr.write(`${message}\n`);
  process.stderr.write('usage: zendesk-to-ndjson.mjs <export.json> [--prefix zendesk-] [--field <zendesk field id>=<key> ...]\n');
  process.exit(2);
}

function parseArguments(argv) {
  const options = { file: undefined, prefix: 'zendesk-', fields: new Map() };
  for (let i = 0; i < argv.length; i += 1) {
    const argument = argv[i];
    if (argument === '--prefix') options.prefix = argv[++i] ?? usage('--prefix needs a value');
    else if (argument === '--field') {
      const [id, key] = (argv[++i] ?? '').split('=');
      if (!id || !key) usage('--field needs <zendesk field id>=<key>');
      options.fields.set(String(id), key);
    } else if (argument.startsWith('--')) usage(`unknown option ${argument}`);
    else if (options.file === undefined) options.file = argument;
    else usage(`one file only (also got ${argument})`);
  }
  if (!options.file) usage();
  return options;
}

/** Text cut to `max` characters (not UTF-16 units), with an ellipsis when it was longer. */
function cut(text, max) {
  const characters = [...text];
  return characters.length <= max ? text : `${characters.slice(0, max - 1).join('')}…`;
}

/** A Zendesk tag as a tag here: lower-case, NFC, characters other than letters, digits, `_.:-` as `-`, at most 64. */
function tagOf(tag) {
  const canonical = [
    ...String(tag)
      .trim()
      .toLowerCase()
      .normalize('NFC')
      .replace(/[^\p{L}\p{M}\p{N}_.:-]+/gu, '-'),
  ]
    .slice(0, LIMITS.tag)
    .join('');
  return canonical.replace(/^-+|-+$/g, '') || undefined;
}

export function convert(data, options, warn = (message) => process.stderr.write(`${message}\n`)) {
  const emails = new Map((data.users ?? []).map((user) => [user.id, user.email ?? undefined]));
  const email = (id) => (id === null || id === undefined ? undefined : emails.get(id));
  const lines = [];
  for (const ticket of data.tickets ?? []) {
    const externalId = `${options.prefix}${ticket.id}`;
    if (ticket.status === 'deleted') {
      warn(`${externalId}: deleted in Zendesk, left out`);
      continue;
    }
    const comments = (ticket.comments ?? []).map((comment) => ({
      externalId: String(comment.id),
      author: email(comment.author_id) ?? `zendesk-user-${comment.author_id}`,
      // A comment with only attachments has no text; the attachments themselves are not imported.
      body: cut((comment.plain_body ?? comment.body ?? '').trim() || '(no text)', LIMITS.comment),
      visibility: comment.public === false ? 'INTERNAL' : 'PUBLIC',
      createdAt: comment.created_at,
    }));
    const requester = email(ticket.requester_id);
    if (!requester)
      warn(
        `${externalId}: requester ${ticket.requester_id} has no address among the users; named requester-${ticket.requester_id}@zendesk.invalid`,
      );
    const description = (ticket.description ?? '').trim() || comments[0]?.body || '(no description)';
    const fields = {};
    for (const { id, value } of ticket.custom_fields ?? []) {
      const key = options.fields.get(String(id));
      if (key && value !== null && value !== undefined && value !== '') fields[key] = value;
    }
    const ccEmails = [...new Set([...(ticket.collaborator_ids ?? []), ...(ticket.email_cc_ids ?? [])].map(email).filter(Boolean))];
    if (ccEmails.length > LIMITS.ccEmails) warn(`${externalId}: ${ccEmails.length} participants, the first ${LIMITS.ccEmails} kept`);
    const tags = [...new Set((ticket.tags ?? []).map(tagOf).filter(Boolean))];
    if (tags.length > LIMITS.tags) warn(`${externalId}: ${tags.length} tags, the first ${LIMITS.tags} kept`);
    lines.push({
      externalId,
      title: cut((ticket.subject ?? ticket.raw_subject ?? '').trim() || '(no subject)', LIMITS.title),
      description: cut(description, LIMITS.description),
      status: STATUS[ticket.status] ?? 'OPEN',
      priority: PRIORITY[ticket.priority] ?? 'MEDIUM',
      requesterEmail: requester ?? `requester-${ticket.requester_id}@zendesk.invalid`,
      assignedTo: email(ticket.assignee_id) ?? null,
      ccEmails: ccEmails.slice(0, LIMITS.ccEmails),
      tags: tags.slice(0, LIMITS.tags),
      fields,
      createdAt: ticket.created_at,
      updatedAt: ticket.updated_at,
      comments,
    });
  }
  return lines;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const options = parseArguments(process.argv.slice(2));
  const data = JSON.parse(readFileSync(options.file, 'utf8'));
  for (const line of convert(data, options)) process.stdout.write(`${JSON.stringify(line)}\n`);
}
