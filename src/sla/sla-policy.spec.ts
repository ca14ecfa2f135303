import { jest } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../config/app-config.js';
import { loadSlaPolicy, parseIsoDuration } from './sla-policy.js';

const folder = mkdtempSync(join(tmpdir(), 'sla-policy-'));
function policyFile(text: string): string {
  const file = join(folder, `${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  return file;
}
const VALID = `
calendars:
  office: { timeZone: Europe/Berlin, hours: { mon: ["08:00-12:00", "13:00-17:00"] }, holidays: ["2026-12-25"] }
  always: 24x7
warningBefore: PT15M
priorities:
  CRITICAL: { calendar: always, firstResponse: PT15M, resolution: PT4H }
  HIGH:     { calendar: office, firstResponse: PT1H,  resolution: PT8H }
  MEDIUM:   { calendar: office, firstResponse: PT4H,  resolution: PT24H }
  LOW:      { calendar: office, firstResponse: PT8H,  resolution: PT40H }
`;

describe('SLA settings', () => {
  it('is off by default, and the settings name the policy file without reading it', () => {
    expect(parseConfig({ SLA_POLICY_FILE: '/does/not/exist.yaml' }).sla).toEqual({ enabled: false, policyFile: '/does/not/exist.yaml' });
    expect(parseConfig({ SLA_ENABLED: 'true', SLA_POLICY_FILE: '/does/not/exist.yaml' }).sla.enabled).toBe(true);
  });

  it('loads the policy that ships with the service by default', () => {
    const policy = loadSlaPolicy(parseConfig({ SLA_ENABLED: 'true' }).sla.policyFile);
    expect(policy.priorities.HIGH.goals.resolution).toEqual({ text: 'PT8H', ms: 8 * 3_600_000 });
    expect(policy.priorities.CRITICAL.calendar).toEqual({ name: 'always', always: true });
  });

  it('reads a complete policy file', () => {
    const policy = loadSlaPolicy(policyFile(VALID));
    expect(policy.warningBefore.ms).toBe(15 * 60_000);
    expect(policy.priorities.HIGH.calendar).toMatchObject({ name: 'office', timeZone: 'Europe/Berlin' });
  });

  it.each([
    ['a missing file', null, /nope\.yaml: cannot be read \(ENOENT\)/],
    ['invalid YAML', 'calendars: [', /: \(document\): not valid YAML/],
    [
      'a !!js/function tag',
      VALID.replace('always: 24x7', 'always: !!js/function "function () { return \'24x7\' }"'),
      /: \(document\): unsupported YAML tag !!js\/function at line 4, column 11; the policy takes plain mappings, lists and strings$/,
    ],
    [
      'a custom tag',
      VALID.replace('warningBefore: PT15M', 'warningBefore: !duration PT15M'),
      /: \(document\): unsupported YAML tag !duration at line 5/,
    ],
    ['a YAML 1.1 tag', VALID.replace('"2026-12-25"', '!!timestamp 2026-12-25'), /unsupported YAML tag !!timestamp at line 3/],
    [
      'a zone that is not IANA',
      VALID.replace('Europe/Berlin', 'CET+1'),
      /: calendars\.office\.timeZone: "CET\+1" is not an IANA time zone/,
    ],
    ['an unknown zone', VALID.replace('Europe/Berlin', 'Europe/Atlantis'), /calendars\.office\.timeZone: "Europe\/Atlantis"/],
    [
      'an interval ending before it starts',
      VALID.replace('13:00-17:00', '17:00-13:00'),
      /calendars\.office\.hours\.mon\[1\]: "17:00-13:00"/,
    ],
    [
      'overlapping intervals',
      VALID.replace('13:00-17:00', '11:00-17:00'),
      /calendars\.office\.hours\.mon\[1\]: intervals must be in order/,
    ],
    ['a bad duration', VALID.replace('PT8H', 'PT8X'), /priorities\.HIGH\.resolution: "PT8X" is not a positive ISO-8601 duration/],
    ['a missing priority', VALID.replace(/^ {2}LOW:.*$/m, ''), /priorities\.LOW: missing/],
    ['an unknown calendar', VALID.replace('calendar: always', 'calendar: night'), /priorities\.CRITICAL\.calendar: "night"/],
    ['a bad holiday', VALID.replace('2026-12-25', '2026-02-30'), /calendars\.office\.holidays\[0\]: "2026-02-30"/],
  ])('ends start-up with one line naming the file, the key and the problem for %s', (_name, text, message) => {
    const file = text === null ? join(folder, 'nope.yaml') : policyFile(text);
    expect(() => loadSlaPolicy(file)).toThrow(message);
    expect(() => loadSlaPolicy(file)).toThrow(new RegExp(`^SLA_POLICY_FILE ${file.replace(/[.]/g, '\\.')}: [^\\n]+$`));
  });

  it('prints no YAMLWarning (nor anything else) for an unsupported tag: the ConfigError is the one line', () => {
    const file = policyFile(VALID.replace('always: 24x7', 'always: !!js/function "function () {}"'));
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(() => loadSlaPolicy(file)).toThrow(/unsupported YAML tag !!js\/function/);
      expect(emitWarning).not.toHaveBeenCalled();
      expect(warn).not.toHaveBeenCalled();
      expect(stderr).not.toHaveBeenCalled();
    } finally {
      emitWarning.mockRestore();
      warn.mockRestore();
      stderr.mockRestore();
    }
  });

  it("refuses a goal longer than a year of its calendar's weekly hours", () => {
    const file = policyFile(VALID.replace('resolution: PT40H', 'resolution: P300D'));
    expect(() => loadSlaPolicy(file)).toThrow(
      `SLA_POLICY_FILE ${file}: priorities.LOW.resolution: P300D is more than a year (52 weeks) of the hours of calendar office`,
    );
  });

  it('parses ISO-8601 durations of days, hours, minutes and seconds', () => {
    expect(['PT5S', 'PT1H30M', 'P1DT1S', 'PT0.5S', 'PT0S'].map(parseIsoDuration)).toEqual([5000, 5_400_000, 86_401_000, 500, 0]);
    expect(['P', 'PT', '1H', 'P1W', 'P1M', 'PT-5S', 'pt5s'].map(parseIsoDuration)).toEqual(Array(7).fill(undefined));
  });
});
