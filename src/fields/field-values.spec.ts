import fc from 'fast-check';
import { type FieldDefinition, readDefinition } from './field-definition.js';
import { applyFieldValues, checkValue, isIsoDate } from './field-values.js';

const field = (overrides: Partial<FieldDefinition>): FieldDefinition => ({
  key: 'f',
  label: 'F',
  type: 'text',
  required: false,
  options: null,
  min: null,
  max: null,
  pattern: null,
  description: null,
  ...overrides,
});

const CATEGORY = field({ key: 'category', type: 'enum', options: ['network', 'hardware'], required: true });
const COST = field({ key: 'cost', type: 'number', min: 0, max: 1000 });
const DUE = field({ key: 'due', type: 'date' });
const ONCALL = field({ key: 'oncall', type: 'boolean' });
const SITES = field({ key: 'sites', type: 'multi_enum', options: ['ber', 'muc', 'ham'] });
const ASSET = field({ key: 'asset', type: 'text', pattern: 'PC-\\d{4}' });
const ALL = [CATEGORY, COST, DUE, ONCALL, SITES, ASSET];

describe('field values', () => {
  it('accepts each type within its definition, in canonical form', () => {
    expect(
      applyFieldValues(
        ALL,
        { category: 'network', cost: 12.5, due: '2026-02-28', oncall: false, sites: ['ham', 'ber', 'ham'], asset: 'PC-0042' },
        'create',
      ),
    ).toEqual({
      values: { category: 'network', cost: 12.5, due: '2026-02-28', oncall: false, sites: ['ber', 'ham'], asset: 'PC-0042' },
      problems: [],
    });
  });

  it('names every refused value as fields.<key>, unknown keys and a missing required field included', () => {
    const { values, problems } = applyFieldValues(
      ALL,
      { cost: 1001, due: '2026-02-30', oncall: 'yes', sites: ['xxx'], asset: 'PC-42', nope: 1 },
      'create',
    );
    expect(values).toBeUndefined();
    expect(problems.map((problem) => problem.field).sort()).toEqual(
      ['fields.asset', 'fields.category', 'fields.cost', 'fields.due', 'fields.nope', 'fields.oncall', 'fields.sites'].sort(),
    );
    expect(applyFieldValues(ALL, 'category', 'create').problems.map((problem) => problem.field)).toEqual(['fields']);
    expect(applyFieldValues(ALL, { category: 'printer' }, 'create').problems[0].message).toBe('must be one of network, hardware');
  });

  it('merges a patch: a value replaces, null removes, absent keeps; removing a required value is refused', () => {
    const current = { category: 'network', cost: 5 };
    expect(applyFieldValues(ALL, { cost: null, oncall: true }, 'patch', current).values).toEqual({ category: 'network', oncall: true });
    expect(applyFieldValues(ALL, undefined, 'patch', current).values).toEqual(current);
    expect(applyFieldValues(ALL, { category: null }, 'patch', current).problems.map((p) => p.field)).toEqual(['fields.category']);
    // A required field defined after the ticket was made does not block other changes.
    expect(applyFieldValues(ALL, { cost: 6 }, 'patch', {}).values).toEqual({ cost: 6 });
    expect(applyFieldValues(ALL, { sites: [] }, 'patch', { category: 'network', sites: ['ber'] }).values).toEqual({ category: 'network' });
    expect(applyFieldValues([COST], null, 'patch', { cost: 1 }).values).toEqual({});
  });

  it('reads only real calendar dates', () => {
    for (const good of ['2024-02-29', '1000-01-01', '9999-12-31']) expect(isIsoDate(good)).toBe(true);
    for (const bad of ['2023-02-29', '2026-13-01', '26-01-01', '2026-1-1', '0999-01-01', '2026-01-01T00:00:00Z', 20260101]) {
      expect(isIsoDate(bad)).toBe(false);
    }
  });

  const definitions = fc.oneof(
    fc.record({ type: fc.constant('text' as const), pattern: fc.constantFrom(null, '[a-z]+', 'PC-\\d{2,4}') }),
    fc.tuple(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 0, max: 1000 })).map(([min, span]) => ({
      type: 'number' as const,
      min,
      max: min + span,
    })),
    fc.constant({ type: 'date' as const }),
    fc.constant({ type: 'boolean' as const }),
    fc
      .uniqueArray(
        fc.string({ minLength: 1, maxLength: 8 }).filter((s) => s.trim() === s && s !== '' && !s.includes(',')),
        { minLength: 1, maxLength: 6 },
      )
      .chain((options) => fc.constantFrom({ type: 'enum' as const, options }, { type: 'multi_enum' as const, options })),
  );
  const anyValue = fc.oneof(
    fc.string(),
    fc.stringMatching(/^[a-z]{1,5}$/),
    fc.stringMatching(/^PC-\d{2,4}$/),
    fc.double(),
    fc.integer({ min: -2000, max: 2000 }),
    fc.boolean(),
    fc.date({ noInvalidDate: true, min: new Date('1000-01-01'), max: new Date('9999-12-31') }).map((d) => d.toISOString().slice(0, 10)),
    fc.array(fc.string({ maxLength: 8 }), { maxLength: 4 }),
    fc.constant(null),
    fc.object(),
  );

  it('gives a value that is its own canonical form and that a definition accepts again, or refuses it with a reason', () => {
    fc.assert(
      fc.property(definitions, anyValue, (shape, value) => {
        const { definition } = readDefinition({ key: 'k', label: 'K', ...shape });
        expect(definition).toBeDefined();
        if (value === null) return;
        const checked = checkValue(definition!, value);
        if ('message' in checked) {
          expect(checked.message.length).toBeGreaterThan(0);
          return;
        }
        if (checked.value === null) return;
        expect(checkValue(definition!, checked.value)).toEqual({ value: checked.value });
        if (definition!.type === 'number') {
          expect(checked.value as number).toBeGreaterThanOrEqual(definition!.min!);
          expect(checked.value as number).toBeLessThanOrEqual(definition!.max!);
        }
      }),
    );
  });
});

describe('field definitions', () => {
  it('reads a definition, and refuses keys, types and members that do not fit', () => {
    expect(readDefinition({ key: 'site', label: 'Site', type: 'enum', options: ['ber'] }).definition).toMatchObject({
      required: false,
      min: null,
    });
    const { problems } = readDefinition({ key: 'Site', label: '', type: 'enum', options: [], min: 1, pattern: '(a+)+' });
    expect(problems.map((problem) => problem.field)).toEqual(['key', 'label', 'options', 'min', 'pattern']);
    expect(readDefinition({ key: 'x', label: 'X', type: 'text', pattern: '(a+)+$' }).problems.map((p) => p.field)).toEqual(['pattern']);
    expect(readDefinition({ key: 'x', label: 'X', type: 'number', min: 5, max: 1 }).problems.map((p) => p.field)).toEqual(['max']);
  });

  it('refuses what would mislead or stall: constructor as a key, patterns that escape anchoring or backtrack, commas in options, bounds finer than stored', () => {
    const fieldsOf = (body: object) => readDefinition({ key: 'x', label: 'X', ...body }).problems.map((p) => p.field);
    expect(fieldsOf({ key: 'constructor', type: 'text' })).toEqual(['key']);
    for (const pattern of ['a)|(b', '(a|a)*', '(a|b)+c', '(x+x+)+y', '['])
      expect([pattern, fieldsOf({ type: 'text', pattern })]).toEqual([pattern, ['pattern']]);
    expect(fieldsOf({ type: 'text', pattern: '(PC|NB)-\\d{4}' })).toEqual([]);
    expect(fieldsOf({ type: 'enum', options: ['a,b'] })).toEqual(['options']);
    expect(fieldsOf({ type: 'enum', options: ['a '] })).toEqual(['options']);
    expect(fieldsOf({ type: 'number', min: 1e-20 })).toEqual(['min']);
    const tiny = readDefinition({ key: 'x', label: 'X', type: 'number', min: 0.5 }).definition!;
    expect(checkValue(tiny, 0.4999999)).toEqual({ message: 'must be between 0.5 and ∞' });
    // Stored to 10 places, 0.49999999999 is 0.5.
    expect(checkValue(tiny, 0.49999999999)).toEqual({ value: 0.5 });
    expect(checkValue(tiny, 0.50000000001)).toEqual({ value: 0.5 });
  });

  it('keeps key and type of an existing field and merges the rest', () => {
    const existing = readDefinition({ key: 'cost', label: 'Cost', type: 'number', max: 10 }).definition!;
    expect(readDefinition({ label: 'Cost (EUR)', max: null }, existing).definition).toMatchObject({
      key: 'cost',
      label: 'Cost (EUR)',
      max: null,
    });
    expect(readDefinition({ label: 'Cost' }, existing).definition).toMatchObject({ max: 10 });
    expect(readDefinition({ type: 'text' }, existing).problems.map((p) => p.field)).toEqual(['type']);
    expect(readDefinition({ key: 'price' }, existing).problems.map((p) => p.field)).toEqual(['key']);
  });
});
