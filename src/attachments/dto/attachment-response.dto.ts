import { ApiProperty } from '@nestjs/swagger';

/** An attachment's metadata, as the API answers it and as its events carry it (never its bytes). */
export class AttachmentResponse {
  @ApiProperty({ type: 'integer', format: 'int64', example: 5 })
  id: number;

  @ApiProperty({ type: 'integer', format: 'int64', example: 42 })
  ticketId: number;

  @ApiProperty({
    description: "The client's filename, cleaned: no path separators or control characters, at most 255 UTF-8 bytes",
    example: 'screenshot.png',
  })
  filename: string;

  @ApiProperty({ description: 'What the bytes are (magic numbers win over the declared type)', example: 'image/png' })
  contentType: string;

  @ApiProperty({ description: 'In bytes', type: 'integer', format: 'int64', example: 48213 })
  size: number;

  @ApiProperty({
    description: 'SHA-256 of the bytes, hex; also the ETag of the content',
    example: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  })
  sha256: string;

  @ApiProperty({ description: 'UTC, with milliseconds', type: String, format: 'date-time', example: '2026-11-22T20:37:14.123Z' })
  createdAt: Date;

  @ApiProperty({ description: "The uploader (the token's subject); null when anonymous", type: String, nullable: true, example: 'desk-2' })
  createdBy: string | null;
}
