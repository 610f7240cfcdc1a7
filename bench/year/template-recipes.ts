import { outboundMessage } from '../../test/salesforce/support/outbound-message-builder.ts';
import { id18, MARK, markId } from './template-org.ts';

/**
 * The inbound messages the template run sends, one per kind of row group the year is made of.
 * Each recipe writes its own marker values (title, record ids, times), so no two recipes share a
 * dedupe key, a meeting or a start, and the rows each leaves can be told apart and substituted.
 */

export type RecipeName = 'salesforce' | 'salesforceDead' | 'calendarMatched' | 'calendarTied' | 'calendarNone' | 'calendarInternal' | 'recording';

export interface RecipeMarks {
  title: string;
  /** The source record's id: a Salesforce Event's 15-character id, or the calendar/recording id. */
  sourceId: string;
  /** The notification id (Salesforce) or webhook-id (signed events): the dedupe key's variable part. */
  deliveryId: string;
  /** Start and end as `YYYY-MM-DDTHH:MM:SS`; each recipe's meeting has a day of its own. */
  start: string;
  end: string;
}

export interface Recipe {
  name: RecipeName;
  marks: RecipeMarks;
  /** 'salesforce': the Outbound Message XML; 'calendar': the signed JSON body. */
  route: 'salesforce' | 'calendar';
  body: string;
}

/** A title the fake Momentum answers 500 for: the recipe whose delivery ends dead. */
export const FAILING_TITLE_MARK = 'Xqfail';

function marksOf(index: number, title: string): RecipeMarks {
  const day = String(3 + index).padStart(2, '0');
  return {
    title,
    sourceId: index < 2 ? markId('00U', index + 1) : `xqsrc${index}AAMkAGI2TG93`,
    deliveryId: index < 2 ? markId('04l', index + 1) : `xqwh${index}`,
    start: `2026-03-${day}T16:00:00`,
    end: `2026-03-${day}T16:30:00`,
  };
}

function salesforceRecipe(name: RecipeName, index: number, title: string): Recipe {
  const marks = marksOf(index, title);
  const body = outboundMessage({
    notifications: [
      {
        id: id18(marks.deliveryId),
        type: 'sf:Event',
        fields: {
          Id: id18(marks.sourceId),
          AccountId: id18(MARK.account),
          EndDateTime: `${marks.end}.000Z`,
          OwnerId: id18(MARK.ownerUser),
          StartDateTime: `${marks.start}.000Z`,
          Subject: marks.title,
          WhatId: id18(MARK.opportunity),
          WhoId: id18(MARK.contact),
          SystemModstamp: `${marks.start.slice(0, 10)}T09:00:00.000Z`,
        },
      },
    ],
  });
  return { name, marks, route: 'salesforce', body };
}

function calendarRecipe(name: RecipeName, index: number, title: string, attendees: string[]): Recipe {
  const marks = marksOf(index, title);
  const body = JSON.stringify({
    version: 1,
    id: marks.sourceId,
    sourceType: 'MS_TEAMS',
    title: marks.title,
    start: `${marks.start}Z`,
    end: `${marks.end}Z`,
    organizer: { email: MARK.host, name: MARK.hostName },
    attendees: attendees.map((email) => ({ email })),
  });
  return { name, marks, route: 'calendar', body };
}

function recordingRecipe(index: number, title: string): Recipe {
  const marks = marksOf(index, title);
  const body = JSON.stringify({
    kind: 'recording',
    version: 1,
    id: marks.sourceId,
    recordingUrl: `https://recorder.example.net/r/${marks.sourceId}`,
    callUrl: `https://meet.example.net/j/${marks.sourceId}`,
    title: marks.title,
    start: `${marks.start}Z`,
    end: `${marks.end}Z`,
    host: { email: MARK.host, name: MARK.hostName },
    attendees: [{ email: MARK.buyer, name: MARK.buyerName }],
  });
  return { name: 'recording', marks, route: 'calendar', body };
}

export function templateRecipes(): Recipe[] {
  return [
    salesforceRecipe('salesforce', 0, 'Xqtitle0 meeting'),
    salesforceRecipe('salesforceDead', 1, `Xqtitle1 ${FAILING_TITLE_MARK}`),
    calendarRecipe('calendarMatched', 2, 'Xqtitle2 meeting', [MARK.buyer]),
    calendarRecipe('calendarTied', 3, 'Xqtitle3 meeting', [MARK.tiedBuyer]),
    calendarRecipe('calendarNone', 4, 'Xqtitle4 meeting', [MARK.nobody]),
    calendarRecipe('calendarInternal', 5, 'Xqtitle5 meeting', [`xqcolleague@${MARK.internalDomain}`]),
    recordingRecipe(6, 'Xqtitle6 meeting'),
  ];
}
