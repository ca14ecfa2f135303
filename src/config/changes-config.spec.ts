import { parseConfig } from './app-config.js';

describe('change feed settings', () => {
  it('ends streams after an hour and allows 10 streams and long-polls per client by default', () => {
    expect(parseConfig({}).changes).toMatchObject({ streamMaxSeconds: 3600, streamsPerClient: 10 });
    expect(parseConfig({ CHANGES_STREAM_MAX_SECONDS: '60', CHANGES_STREAMS_PER_CLIENT: '0' }).changes).toMatchObject({
      streamMaxSeconds: 60,
      streamsPerClient: 0,
    });
  });

  it('stops start-up with a message naming the setting for a value out of range', () => {
    expect(() => parseConfig({ CHANGES_STREAM_MAX_SECONDS: '0' })).toThrow('CHANGES_STREAM_MAX_SECONDS must be between 1 and 86400, got 0');
    expect(() => parseConfig({ CHANGES_STREAM_MAX_SECONDS: '86401' })).toThrow(/^CHANGES_STREAM_MAX_SECONDS must be between/);
    expect(() => parseConfig({ CHANGES_STREAMS_PER_CLIENT: 'many' })).toThrow(
      'CHANGES_STREAMS_PER_CLIENT must be a non-negative integer, got "many"',
    );
    expect(() => parseConfig({ CHANGES_STREAMS_PER_CLIENT: '100001' })).toThrow(/^CHANGES_STREAMS_PER_CLIENT must be between 0 and 100000/);
  });
});
