import { describe, expect, it } from 'vitest';

import { createZoomClient } from '../../src/zoom/zoom-client.ts';
import { ACCOUNT, CLIENT, SECRET, useZoomKit } from '../fakes/support/fake-zoom-kit.ts';

/*
 * The Server-to-Server token (docs/protocols.md §8): Zoom invalidates a token when it issues the
 * next one, so the mapping jobs of one bridge share one token and one request for it.
 */

const { fakeZoom } = useZoomKit();

describe('the Zoom client token', () => {
  it('when four lookups start at once with no token yet, then one token is asked for and all four use it', async () => {
    // Arrange
    const fake = await fakeZoom();
    const uuids = ['aaa111==', 'bbb222==', 'ccc333==', 'ddd444=='];
    for (const uuid of uuids) fake.setParticipants(uuid, [{ name: 'Ana', user_email: 'ana@example.com' }]);
    const client = createZoomClient({ apiUrl: fake.apiUrl, oauthUrl: fake.oauthUrl, accountId: ACCOUNT, clientId: CLIENT, clientSecret: SECRET });

    // Act
    const found = await Promise.all(uuids.map((uuid) => client.participants(uuid)));

    // Assert
    expect(found.map((list) => list?.participants.map((person) => person.email))).toEqual(uuids.map(() => ['ana@example.com']));
    expect(fake.tokensIssued).toHaveLength(1);
  });
});
