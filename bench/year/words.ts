/**
 * The vocabulary of the year: meeting topics, qualifiers, company names (a prefix and a suffix:
 * 48 × 40 = 1 920 companies), people's first and last names (60 × 60) and the calendar tools a
 * meeting comes from. Every generated value is a pick from these by a hash of its index (vary.ts).
 */

export const TOPICS = [
  'pricing review',
  'renewal',
  'QBR',
  'product demo',
  'kickoff',
  'security review',
  'onboarding',
  'roadmap session',
  'procurement call',
  'legal review',
  'pilot check-in',
  'executive briefing',
  'integration planning',
  'discovery call',
  'contract redline',
  'expansion planning',
  'technical deep dive',
  'success plan',
  'budget alignment',
  'architecture review',
  'implementation sync',
  'stakeholder intro',
  'proposal walkthrough',
  'negotiation',
  'champion sync',
  'data migration',
  'compliance questions',
  'training session',
  'support escalation',
  'value assessment',
  'workshop',
  'health check',
  'deal review',
  'POC readout',
  'RFP questions',
  'launch planning',
] as const;

export const QUALIFIERS = ['', '', '', 'Quarterly', 'Weekly', 'Follow-up:', 'Intro:', 'Final', 'Q3', 'Q4', 'Re:', 'Urgent:', '2nd', 'Internal prep:'] as const;

const COMPANY_PREFIXES =
  'Acme Blue Cobalt Delta Ever Fjord Gran Helio Iron Juno Kite Luma Mira Nova Onyx Pine Quartz Rho Sable Tera Umbra Vela Wren Xeno Yarrow Zephyr Amber Birch Cinder Dune Ember Flint Glen Harbor Indigo Jade Krill Lark Maple Nimbus Orchid Polar Quill Raven Slate Tidal Ultra Vertex'.split(
    ' ',
  );

const COMPANY_SUFFIXES =
  'tech soft works labs corp ware data logic net grid scale forge wave point stack line path cloud sphere bridge field gate mind loop nest port ridge stone vault wing yard zone bit core dyne flow hub link mark shift'.split(
    ' ',
  );

export const COMPANY_COUNT = COMPANY_PREFIXES.length * COMPANY_SUFFIXES.length;

/** Company `index` (0…COMPANY_COUNT-1): `Novaforge`. */
export function companyName(index: number): string {
  const prefix = COMPANY_PREFIXES[index % COMPANY_PREFIXES.length] as string;
  const suffix = COMPANY_SUFFIXES[Math.floor(index / COMPANY_PREFIXES.length) % COMPANY_SUFFIXES.length] as string;
  return `${prefix}${suffix}`;
}

export const FIRST_NAMES =
  'Ana Ben Carla Dev Elif Farid Greta Hiro Ines Jonas Kira Luca Maya Nils Olga Pavel Quinn Rosa Sami Tara Uma Viktor Wanda Xavi Yara Zoe Aiko Bruno Chloe Dara Emil Fatima Gus Hana Igor Jade Kofi Lena Marco Nora Omar Priya Rafael Sofia Theo Una Vera Will Ximena Yusuf Zara Amir Bea Cyrus Dina Eero Flora Gael Hugo Isla'.split(
    ' ',
  );

export const LAST_NAMES =
  'Abe Berg Costa Dahl Eze Fox Gray Hale Ito Jensen Khan Lund Moreau Novak Ortiz Park Quist Reyes Silva Tanaka Ueda Varga Weber Xu Yilmaz Zhou Adler Brandt Cruz Duarte Engel Ferraro Gomez Holm Iqbal Jovic Keller Laine Mendes Nagy Olsen Pereira Rossi Sato Toth Unger Vidal Walsh Young Zeller Arnaud Bauer Castro Dietz Esposito Fischer Ghosh Haas Ibarra Kowalski'.split(
    ' ',
  );

/** The calendar tools a signed calendar event names as its sourceType (momentum/schemas.ts KNOWN_SOURCE_TYPES). */
export const CALENDAR_SOURCE_TYPES = ['MS_TEAMS', 'ZOOM', 'GOOGLE_CALENDAR', 'WEBEX'] as const;

/** The seller's own domain: every host is a rep there. */
export const SELLER_DOMAIN = 'northwindsales.com';
/** Reps hosting the meetings. */
export const REP_COUNT = 40;

/** A word no generated value holds: the search that matches nothing. */
export const NOWHERE_WORD = 'zzyzxnothing';
