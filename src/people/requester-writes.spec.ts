import fc from 'fast-check';
import type { RequesterViewer } from '../common/context/viewer.js';
import { assertPublicComment, assertRequesterCreate, assertRequesterPatch } from './requester-writes.js';

const STATUSES = ['OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED'];
const ann: RequesterViewer = { kind: 'requester', email: 'ann@example.com', domain: 'example.com', organization: null };

describe('what a requester may write', () => {
  it('opens tickets in their own name, in any case, OPEN and unassigned', () => {
    const open =
      (requesterEmail: string, status = 'OPEN', assignedTo: string | null = null) =>
      () =>
        assertRequesterCreate(ann, { requesterEmail, status, assignedTo });
    expect(open('Ann@Example.COM')).not.toThrow();
    expect(open('bob@example.com')).toThrow('own name');
    expect(open('ann@example.com.evil')).toThrow('own name');
    expect(open('ann@example.com', 'CLOSED')).toThrow('OPEN and unassigned');
    expect(open('ann@example.com', 'OPEN', 'network-team')).toThrow('OPEN and unassigned');
  });

  it('writes public comments only', () => {
    expect(() => assertPublicComment('PUBLIC')).not.toThrow();
    expect(() => assertPublicComment('INTERNAL')).toThrow('public comments only');
  });

  it('moves a status only to RESOLVED or CLOSED, or from RESOLVED back to IN_PROGRESS, and changes nothing else', () => {
    fc.assert(
      fc.property(fc.constantFrom(...STATUSES), fc.constantFrom(...STATUSES), (from, to) => {
        const allowed = to === 'RESOLVED' || to === 'CLOSED' || (from === 'RESOLVED' && to === 'IN_PROGRESS');
        const check = () => assertRequesterPatch({ status: to }, from);
        if (allowed) expect(check).not.toThrow();
        else expect(check).toThrow('not move it');
      }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('title', 'description', 'priority', 'requesterEmail', 'assignedTo'),
        fc.oneof(fc.string(), fc.constant(null)),
        (field, value) => {
          expect(() => assertRequesterPatch({ status: 'RESOLVED', [field]: value }, 'OPEN')).toThrow('only the status');
        },
      ),
    );
    expect(() => assertRequesterPatch({}, 'OPEN')).toThrow('only the status');
  });
});
