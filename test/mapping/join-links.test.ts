import { describe, expect, it } from 'vitest';

import { conferencingUrlsIn, joinLinkOf, zoomLink } from '../../src/mapping/join-links.ts';

describe('joinLinkOf', () => {
  it.each([
    ['a Zoom join link with a passcode', 'https://us02web.zoom.us/j/85012345678?pwd=abc', 'zoom:85012345678'],
    ['a Zoom web-client link', 'https://zoom.us/wc/join/85012345678', 'zoom:85012345678'],
    ['a ZoomGov link', 'https://acme.zoomgov.com/j/1234567890', 'zoom:1234567890'],
    ['a Google Meet link in capitals', 'https://meet.google.com/ABC-defg-hij/', 'meet:abc-defg-hij'],
    [
      'a Teams link, percent-encoded',
      'https://teams.microsoft.com/l/meetup-join/19%3ameeting_NjY%40thread.v2/0?context=x',
      'teams:/l/meetup-join/19:meeting_NjY@thread.v2/0',
    ],
    ['another provider’s link', 'https://Acme.Webex.com/acme/j.php?MTID=m1#top', 'join:acme.webex.com/acme/j.php?MTID=m1'],
  ])('when it is %s, then it becomes the one identity link of its call', (_what, url, link) => {
    expect(joinLinkOf(url)).toBe(link);
  });

  it('when it is no http link, or a Zoom link without a meeting number, then it is no identity link', () => {
    expect([joinLinkOf('tel:+1-555-0100'), joinLinkOf('not a url'), joinLinkOf('https://zoom.us/my/ana.rep')]).toEqual([undefined, undefined, undefined]);
  });

  it('when a Zoom meeting number is given as text, then it is the Zoom link a join URL makes; anything else is none', () => {
    expect([zoomLink('85012345678'), zoomLink(' 85012345678 '), zoomLink('abc')]).toEqual(['zoom:85012345678', 'zoom:85012345678', undefined]);
  });
});

describe('conferencingUrlsIn', () => {
  it('when text holds a Zoom link and other links, then only the conferencing link is read, without trailing punctuation', () => {
    const text = 'Join: https://us02web.zoom.us/j/85012345678?pwd=abc. Deck: https://docs.example.com/deck, deal https://acme.my.salesforce.com/006';

    expect(conferencingUrlsIn(text)).toEqual(['https://us02web.zoom.us/j/85012345678?pwd=abc']);
    expect(conferencingUrlsIn(undefined)).toEqual([]);
  });
});
