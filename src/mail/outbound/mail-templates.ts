import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NotificationKind } from './notification-rules.js';

/** What a template may name, as `{{ticket.id}}`. */
export interface TemplateValues {
  'ticket.id': string;
  'ticket.title': string;
  'ticket.status': string;
  'ticket.description': string;
  /** The new comment's text (commented only; empty otherwise). */
  'comment.body': string;
  'comment.author': string;
  /** The ticket it was merged into (merged only; empty otherwise). */
  'merge.target': string;
}

const NAMES: ReadonlyArray<keyof TemplateValues> = [
  'ticket.id',
  'ticket.title',
  'ticket.status',
  'ticket.description',
  'comment.body',
  'comment.author',
  'merge.target',
];
const PLACEHOLDER = /\{\{\s*([a-z.]+)\s*\}\}/g;

const FOOTER_TEXT = '\n\n--\nReply to this message to add to ticket #{{ticket.id}}.';
const FOOTER_HTML = '<hr><p style="color:#666">Reply to this message to add to ticket #{{ticket.id}}.</p>';

const DEFAULTS: Record<NotificationKind, { text: string; html: string }> = {
  // The acknowledgement does not repeat the description: a forged sender's text would otherwise reach every address
  // the forger put in Cc, in the desk's name.
  created: {
    text: 'We have received your request and opened ticket #{{ticket.id}}: {{ticket.title}}' + FOOTER_TEXT,
    html: '<p>We have received your request and opened ticket <b>#{{ticket.id}}</b>: {{ticket.title}}</p>' + FOOTER_HTML,
  },
  commented: {
    text: '{{comment.author}} wrote on ticket #{{ticket.id}}:\n\n{{comment.body}}' + FOOTER_TEXT,
    html: '<p>{{comment.author}} wrote on ticket #{{ticket.id}}:</p><div>{{comment.body}}</div>' + FOOTER_HTML,
  },
  resolved: {
    text: 'Ticket #{{ticket.id}} ({{ticket.title}}) is resolved. If it is not, reply to this message and it opens again.' + FOOTER_TEXT,
    html:
      '<p>Ticket <b>#{{ticket.id}}</b> ({{ticket.title}}) is resolved. If it is not, reply to this message and it opens again.</p>' +
      FOOTER_HTML,
  },
  // No footer: a reply goes on the ticket it was merged into, which the mail names.
  merged: {
    text: 'Ticket #{{ticket.id}} ({{ticket.title}}) was merged into ticket #{{merge.target}}, where the conversation goes on. A reply to this message is added there.',
    html: '<p>Ticket <b>#{{ticket.id}}</b> ({{ticket.title}}) was merged into ticket <b>#{{merge.target}}</b>, where the conversation goes on. A reply to this message is added there.</p>',
  },
  closed: {
    text: 'Ticket #{{ticket.id}} ({{ticket.title}}) is closed. A reply to this message opens a new ticket.',
    html: '<p>Ticket <b>#{{ticket.id}}</b> ({{ticket.title}}) is closed. A reply to this message opens a new ticket.</p>',
  },
};

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The bodies of notifications: a text and an HTML template per kind, the defaults above or `<kind>.txt` and
 * `<kind>.html` from MAIL_TEMPLATES_DIR. Written here rather than with a template library: a template only names
 * values (no logic), and in HTML each value is escaped (and its line breaks kept), which is the one rule that matters.
 */
export class MailTemplates {
  private readonly templates: Record<NotificationKind, { text: string; html: string }>;

  /** Reads the overrides once; an unknown `{{name}}` in one stops start-up. */
  constructor(directory?: string) {
    this.templates = { ...DEFAULTS };
    if (!directory) return;
    for (const kind of Object.keys(DEFAULTS) as NotificationKind[]) {
      const read = (extension: string): string | undefined => {
        const path = join(directory, `${kind}.${extension}`);
        if (!existsSync(path)) return undefined;
        const template = readFileSync(path, 'utf8');
        for (const [, name] of template.matchAll(PLACEHOLDER)) {
          if (!NAMES.includes(name as keyof TemplateValues))
            throw new Error(`MAIL_TEMPLATES_DIR: ${path} names {{${name}}}; known are ${NAMES.join(', ')}`);
        }
        return template;
      };
      this.templates[kind] = { text: read('txt') ?? DEFAULTS[kind].text, html: read('html') ?? DEFAULTS[kind].html };
    }
  }

  render(kind: NotificationKind, values: TemplateValues): { text: string; html: string } {
    const { text, html } = this.templates[kind];
    const value = (name: string) => values[name as keyof TemplateValues] ?? '';
    return {
      text: text.replace(PLACEHOLDER, (_, name: string) => value(name)),
      html: html.replace(PLACEHOLDER, (_, name: string) => escapeHtml(value(name)).replace(/\r?\n/g, '<br>')),
    };
  }
}
