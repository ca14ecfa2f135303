import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { ConfigError } from '../config/env-reader.js';

/**
 * The SLA policy (SLA_POLICY_FILE, docs/sla.md) as SlaModule provides it: null when SLA is off, and then the file is
 * not even opened. A policy that cannot be used ends start-up with one line (a ConfigError; bootstrap.ts reads the
 * file once before Nest starts, for that line).
 */
export const SLA_POLICY = Symbol('SlaPolicy');

export const SLA_PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type SlaPriority = (typeof SLA_PRIORITIES)[number];

export const SLA_METRICS = ['firstResponse', 'resolution'] as const;
export type SlaMetricName = (typeof SLA_METRICS)[number];

/** Minutes from the local midnight: [start, end), end at most 24:00. */
export interface DailyInterval {
  start: number;
  end: number;
}

/** When business time counts: always, or the weekly hours of a time zone less its holidays. */
export type SlaCalendar =
  | { name: string; always: true }
  | {
      name: string;
      always: false;
      timeZone: string;
      /** Index 0 is Sunday, as Date.getUTCDay counts. */
      week: DailyInterval[][];
      /** Local dates, `YYYY-MM-DD`. */
      holidays: ReadonlySet<string>;
    };

/** A target as written (`PT8H`) and in milliseconds of business time. */
export interface SlaGoal {
  text: string;
  ms: number;
}

export interface SlaPriorityPolicy {
  calendar: SlaCalendar;
  goals: Record<SlaMetricName, SlaGoal>;
}

export interface SlaPolicy {
  file: string;
  warningBefore: SlaGoal;
  priorities: Record<SlaPriority, SlaPriorityPolicy>;
}

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

/** Reads and checks a policy file; any problem is one ConfigError naming the file, the key and what is wrong. */
export function loadSlaPolicy(file: string): SlaPolicy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`SLA_POLICY_FILE ${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const fail = (key: string, problem: string) => new ConfigError(`SLA_POLICY_FILE ${file}: ${key}: ${problem}`);
  return parseSlaPolicy(readYaml(text, fail), file, fail);
}

type Fail = (key: string, problem: string) => ConfigError;

/**
 * The document's plain values. A tag the core schema does not know (`!!js/function`, `!!timestamp`, `!custom`) is
 * refused, naming it: `parse` would print a YAMLWarning of several lines to stderr and go on with the tagged text as
 * a string, which then fails further on with a misleading reason. parseDocument prints nothing; its errors and
 * warnings become the one line of a ConfigError.
 */
function readYaml(text: string, fail: Fail): unknown {
  // The core schema's tags only (!!str, !!int, !!map, …): resolveKnownTags: false leaves !!timestamp, !!binary and
  // !!set unresolved too, so that they are refused like any other.
  const document = parseDocument(text, { resolveKnownTags: false });
  const [error] = document.errors;
  if (error) throw fail('(document)', `not valid YAML: ${error.message.split('\n')[0]}`);
  const [warning] = document.warnings;
  if (warning) {
    const at = warning.linePos ? ` at line ${warning.linePos[0].line}, column ${warning.linePos[0].col}` : '';
    // An unresolved tag's warning spans the tag as written.
    const tag = text.slice(warning.pos[0], warning.pos[1]);
    if (tag.startsWith('!'))
      throw fail('(document)', `unsupported YAML tag ${tag}${at}; the policy takes plain mappings, lists and strings`);
    throw fail('(document)', `not valid YAML: ${warning.message.split('\n')[0]}`);
  }
  return document.toJS();
}

function parseSlaPolicy(document: unknown, file: string, fail: Fail): SlaPolicy {
  const root = record(document, '(document)', fail);
  const calendarsNode = record(root.calendars, 'calendars', fail);
  const calendars = new Map(Object.entries(calendarsNode).map(([name, node]) => [name, parseCalendar(name, node, fail)]));
  const prioritiesNode = record(root.priorities, 'priorities', fail);
  for (const key of Object.keys(prioritiesNode)) {
    if (!(SLA_PRIORITIES as readonly string[]).includes(key))
      throw fail(`priorities.${key}`, `unknown priority; expected ${SLA_PRIORITIES.join(', ')}`);
  }
  const priorities = {} as Record<SlaPriority, SlaPriorityPolicy>;
  for (const priority of SLA_PRIORITIES) {
    const key = `priorities.${priority}`;
    const node = record(prioritiesNode[priority], key, fail);
    const calendar = calendars.get(String(node.calendar));
    if (!calendar) throw fail(`${key}.calendar`, `"${String(node.calendar)}" is not a calendar of calendars`);
    const goals = {} as Record<SlaMetricName, SlaGoal>;
    for (const metric of SLA_METRICS) {
      goals[metric] = goal(node[metric], `${key}.${metric}`, fail);
      // A deadline is searched for within three years (business-time.ts); a year of the weekly hours always fits.
      if (!calendar.always) {
        const yearMs = 52 * calendar.week.flat().reduce((sum, { start, end }) => sum + (end - start) * 60_000, 0);
        if (goals[metric].ms > yearMs)
          throw fail(`${key}.${metric}`, `${goals[metric].text} is more than a year (52 weeks) of the hours of calendar ${calendar.name}`);
      }
    }
    priorities[priority] = { calendar, goals };
  }
  const warningBefore = root.warningBefore === undefined ? { text: 'PT0S', ms: 0 } : goal(root.warningBefore, 'warningBefore', fail, true);
  return { file, warningBefore, priorities };
}

function parseCalendar(name: string, node: unknown, fail: Fail): SlaCalendar {
  const key = `calendars.${name}`;
  if (node === '24x7') return { name, always: true };
  const calendar = record(node, key, fail);
  const timeZone = calendar.timeZone;
  if (typeof timeZone !== 'string' || !isIanaZone(timeZone))
    throw fail(`${key}.timeZone`, `"${String(timeZone)}" is not an IANA time zone`);
  const hours = record(calendar.hours, `${key}.hours`, fail);
  for (const day of Object.keys(hours)) {
    if (!(WEEKDAYS as readonly string[]).includes(day)) throw fail(`${key}.hours.${day}`, `unknown day; expected ${WEEKDAYS.join(', ')}`);
  }
  const week = WEEKDAYS.map((day) => dailyIntervals(hours[day], `${key}.hours.${day}`, fail));
  if (week.every((intervals) => intervals.length === 0)) throw fail(`${key}.hours`, 'no working hours in the week');
  const holidays = calendar.holidays ?? [];
  if (!Array.isArray(holidays)) throw fail(`${key}.holidays`, 'must be a list of dates YYYY-MM-DD');
  for (const [i, date] of holidays.entries()) {
    if (typeof date !== 'string' || !isDate(date)) throw fail(`${key}.holidays[${i}]`, `"${String(date)}" is not a date YYYY-MM-DD`);
  }
  return { name, always: false, timeZone, week, holidays: new Set(holidays as string[]) };
}

function dailyIntervals(node: unknown, key: string, fail: Fail): DailyInterval[] {
  if (node === undefined || node === null) return [];
  if (!Array.isArray(node)) throw fail(key, 'must be a list of intervals "HH:MM-HH:MM"');
  const intervals = node.map((text: unknown, i) => {
    const match = typeof text === 'string' ? /^(\d\d):(\d\d)-(\d\d):(\d\d)$/.exec(text) : null;
    const start = match ? Number(match[1]) * 60 + Number(match[2]) : NaN;
    const end = match ? Number(match[3]) * 60 + Number(match[4]) : NaN;
    const valid = match && Number(match[2]) < 60 && Number(match[4]) < 60 && start < end && end <= 24 * 60;
    if (!valid) throw fail(`${key}[${i}]`, `"${String(text)}" is not an interval "HH:MM-HH:MM" with start before end, up to 24:00`);
    return { start, end };
  });
  for (let i = 1; i < intervals.length; i++) {
    if (intervals[i].start < intervals[i - 1].end) throw fail(`${key}[${i}]`, 'intervals must be in order and must not overlap');
  }
  return intervals;
}

function record(node: unknown, key: string, fail: Fail): Record<string, unknown> {
  if (typeof node !== 'object' || node === null || Array.isArray(node))
    throw fail(key, node === undefined ? 'missing' : 'must be a mapping');
  return node as Record<string, unknown>;
}

function goal(node: unknown, key: string, fail: Fail, zeroAllowed = false): SlaGoal {
  const ms = typeof node === 'string' ? parseIsoDuration(node) : undefined;
  if (ms === undefined || (ms === 0 && !zeroAllowed)) {
    throw fail(key, node === undefined ? 'missing' : `"${String(node)}" is not a positive ISO-8601 duration such as PT8H or PT5S`);
  }
  return { text: node as string, ms };
}

/**
 * An ISO-8601 duration of days, hours, minutes and seconds (`P1DT2H`, `PT5S`, `PT0.5S`) in milliseconds; a day
 * is 24 hours of business time. Years, months and weeks have no fixed length of business time, so are refused.
 */
export function parseIsoDuration(text: string): number | undefined {
  const match = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,3})?)S)?)?$/.exec(text);
  if (!match || text === 'P' || text.endsWith('T')) return undefined;
  const [, days, hours, minutes, seconds] = match.map((part) => Number(part ?? 0));
  return Math.round(((days * 24 + hours) * 60 + minutes) * 60_000 + seconds * 1000);
}

/** Intl knows exactly the IANA zones (and aliases such as UTC); an offset like `+02:00` is refused. */
function isIanaZone(zone: string): boolean {
  if (!/^[A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)*$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function isDate(text: string): boolean {
  if (!/^\d{4}-\d\d-\d\d$/.test(text)) return false;
  const time = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().startsWith(text);
}
