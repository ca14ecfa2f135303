import { ApiProperty } from '@nestjs/swagger';
import { ProblemDetailResponse } from '../../common/errors/problem-detail-response.dto.js';
import { RESYNC_REQUIRED_TYPE } from '../resync-required.js';

/** OpenAPI schema of the feed's 410: changes after the cursor are past retention. */
export class ResyncRequiredProblemResponse extends ProblemDetailResponse {
  @ApiProperty({ enum: [RESYNC_REQUIRED_TYPE], example: RESYNC_REQUIRED_TYPE })
  declare type: string;

  @ApiProperty({ example: 'Resync required' })
  declare title: string;
}
