import { mayBeInline, recordedContentType } from './content-sniffing.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04, 20, 0]);
const BINARY = Buffer.from([0x00, 0xff, 0x10, 0x80]);

describe('recordedContentType', () => {
  it('records what the magic numbers say, whatever was declared', () => {
    expect(recordedContentType(PNG, 'text/html')).toBe('image/png');
    expect(recordedContentType(Buffer.from([0xff, 0xd8, 0xff, 0xe0]), undefined)).toBe('image/jpeg');
    expect(recordedContentType(Buffer.from('GIF89a...'), 'image/png')).toBe('image/gif');
    expect(recordedContentType(Buffer.from('%PDF-1.7\n'), 'application/octet-stream')).toBe('application/pdf');
  });

  it('keeps a declared ZIP-based format for ZIP bytes, and says application/zip otherwise', () => {
    const docx = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
    expect(recordedContentType(ZIP, docx)).toBe(docx);
    expect(recordedContentType(ZIP, 'image/png')).toBe('application/zip');
  });

  it('keeps a declared textual type for text, and says text/plain otherwise', () => {
    expect(recordedContentType(Buffer.from('<html><script>alert(1)</script>'), 'text/html; charset=utf-8')).toBe('text/html');
    expect(recordedContentType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml')).toBe('image/svg+xml');
    expect(recordedContentType(Buffer.from('ERROR 42 ü\n'), 'image/png')).toBe('text/plain');
    expect(recordedContentType(Buffer.from('plain'), undefined)).toBe('text/plain');
  });

  it('keeps an unverifiable binary type, but not one that claims a sniffed format or text', () => {
    expect(recordedContentType(BINARY, 'image/webp')).toBe('image/webp');
    expect(recordedContentType(BINARY, 'image/png')).toBe('application/octet-stream');
    expect(recordedContentType(BINARY, 'text/html')).toBe('application/octet-stream');
    expect(recordedContentType(BINARY, 'not a type')).toBe('application/octet-stream');
  });
});

describe('mayBeInline', () => {
  it('allows raster images, PDF and plain text, never HTML, SVG or XML', () => {
    for (const type of ['image/png', 'image/jpeg', 'image/gif', 'application/pdf', 'text/plain']) expect(mayBeInline(type)).toBe(true);
    for (const type of ['text/html', 'image/svg+xml', 'application/xml', 'text/xml', 'application/octet-stream'])
      expect(mayBeInline(type)).toBe(false);
  });

  it('allows only types the bytes confirmed: a declared image type the sniffing cannot check stays an attachment', () => {
    for (const type of ['image/webp', 'image/bmp', 'image/avif', 'image/tiff', 'image/x-icon']) {
      expect(recordedContentType(BINARY, type)).toBe(type);
      expect(mayBeInline(recordedContentType(BINARY, type))).toBe(false);
    }
    for (const [bytes, declared] of [
      [PNG, 'image/webp'],
      [Buffer.from('%PDF-1.7\n'), 'image/avif'],
      [Buffer.from('hello'), 'image/bmp'],
    ] as const)
      expect(mayBeInline(recordedContentType(bytes, declared))).toBe(true);
  });
});
