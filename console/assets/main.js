import { createActivity } from './activity.js';
import { createAmbiguous } from './ambiguous.js';
import { createApi } from './api.js';
import { createBulkReplay } from './bulk.js';
import { createCalendars } from './calendars.js';
import { createDeliveries } from './deliveries.js';
import { createDeliveryDetail } from './delivery-detail.js';
import { createDeliveryOrigin } from './delivery-origin.js';
import { byId, showStatus } from './dom.js';
import { createEvents } from './events.js';
import { createHealth, renderSandboxBanner } from './health.js';
import { createImportForm } from './import-form.js';
import { createKeyStore } from './key-store.js';
import { createLive } from './live.js';
import { createMeeting } from './meeting.js';
import { createMeetingSearch } from './meetings.js';
import { createPreview } from './preview.js';
import { createQuota } from './quota.js';
import { createRefusals } from './refusals.js';
import { createRemapForm } from './remap-form.js';
import { createOrgLinks } from './salesforce-links.js';
import { createStats } from './stats.js';
import { createViews } from './views.js';

const STATS_EVERY_MS = 10_000;
/** The chart changes by the hour: every sixth stats refresh is often enough. */
const ACTIVITY_EVERY = 6;

const keys = createKeyStore();
const keyPanel = byId('key-panel');
const consoleMain = byId('console');
const signOut = byId('sign-out');
let statsTimer;
let ticks = 0;
// The counts' refresh under way: a slow answer is not asked for again on top of itself.
let counting;

function askForKey(message = '') {
  clearInterval(statsTimer);
  live.stop();
  consoleMain.hidden = true;
  signOut.hidden = true;
  keyPanel.hidden = false;
  byId('key-error').textContent = message;
  byId('key-input').focus();
}

const api = createApi({
  getKey: keys.get,
  onUnauthorized: () => {
    keys.clear();
    askForKey('That key was refused. Enter a valid admin API key.');
  },
});

const quota = createQuota();
const stats = createStats(api, { onStats: quota.render });
// Health is read with the stats, on the same interval: the panel and the sandbox banner come from one answer.
const health = createHealth({ api, onHealth: renderSandboxBanner });
const refreshCounts = () => Promise.all([stats.refresh(), health.refresh()]);
const activity = createActivity({ api });
const orgLinks = createOrgLinks({ api });
// The modules below call each other only from event handlers, after all of them exist.
const refreshAll = async () => {
  await Promise.all([refreshCounts(), deliveries.load()]);
};
const openDelivery = (id) => (views.select('deliveries'), void detail.show(id, { watching: true, reveal: true }));
const openEvent = (id) => (views.select('events'), void events.show(id));
const openMeeting = (key) => (views.select('meeting'), void meeting.show(key, { reveal: true }));
// A detail opened or closed: the live indicator says so at once, and a closed one's list catches up.
const onToggled = () => live.recheck();
const detail = createDeliveryDetail({
  api,
  onChanged: refreshAll,
  onToggled: () => {
    if (detail.shownId() === null) deliveries.unselect();
    onToggled();
  },
  openEvent,
  openMeeting,
  // A dead remap Momentum did not know: the import form, filled from what the remap sent.
  openImport: (request) => (importForm.prefill(request), views.select('import'), byId('import-id').focus()),
  orgLinks,
  origin: createDeliveryOrigin({ api, orgLinks }),
});
const meeting = createMeeting({ api, orgLinks, openDelivery, openEvent, onChanged: refreshAll });
const ambiguous = createAmbiguous({ api, orgLinks, openMeeting, onChanged: refreshAll });
const deliveries = createDeliveries({ api, detail, orgLinks });
const preview = createPreview({ api });
const events = createEvents({ api, openDelivery, previewEvent: (id) => (views.select('preview'), preview.forEvent(id)), orgLinks, onToggled });
createBulkReplay({ api, onChanged: refreshAll });
const calendars = createCalendars({ api });
// A created delivery opens at once; the lists and counts catch up with it.
const onCreated = async (id) => {
  openDelivery(id);
  await refreshAll();
};
createRemapForm({ api, onCreated });
const importForm = createImportForm({ api, onCreated });
const meetingSearch = createMeetingSearch({ api, openMeeting });
const refusals = createRefusals({ api });

/*
 * The views, in tab order. `live` lists refresh themselves while on screen (live.js); `reading`
 * names what holds a list still. A new view is its <section id="{name}-view"> in index.html and
 * one entry here; a panel for every view goes in #banner-slot or #health-slot instead.
 */
const views = createViews([
  {
    name: 'deliveries',
    label: 'Deliveries',
    live: () => deliveries.load({ live: true }),
    reading: () => (detail.shownId() === null ? null : 'a delivery is open'),
  },
  {
    name: 'events',
    label: 'Inbound events',
    load: () => events.load(),
    live: () => events.load({ live: true }),
    reading: () => (events.shownId() === null ? null : 'an event is open'),
  },
  { name: 'ambiguous', label: 'Ambiguous', load: () => ambiguous.load(), live: () => ambiguous.load({ live: true }), reading: ambiguous.reading },
  { name: 'meetings', label: 'Meetings', load: () => meetingSearch.focus() },
  // A meeting's page has no tab of its own: the search, the delivery page and the ambiguous queue open it.
  { name: 'meeting', label: 'Meeting', tab: false },
  { name: 'preview', label: 'Preview mapping' },
  { name: 'remap', label: 'New remap' },
  { name: 'import', label: 'New import' },
  { name: 'calendars', label: 'Calendars', load: () => calendars.load(), live: () => calendars.load({ live: true }) },
  { name: 'refusals', label: 'Refused traffic', load: () => refusals.load(), live: () => refusals.load({ live: true }) },
]);
const live = createLive({ activeView: views.active });
for (const tab of document.querySelectorAll('button.tab')) tab.addEventListener('click', () => live.recheck());

async function open() {
  keyPanel.hidden = true;
  consoleMain.hidden = false;
  signOut.hidden = false;
  showStatus('');
  await Promise.all([refreshAll(), activity.load()]);
  clearInterval(statsTimer);
  live.start();
  statsTimer = setInterval(() => {
    // A hidden tab asks for nothing; the counts catch up when it is shown again (within one interval).
    if (document.hidden || counting) return;
    counting = refreshCounts()
      .catch(() => undefined)
      .finally(() => (counting = undefined));
    ticks += 1;
    if (ticks % ACTIVITY_EVERY === 0) void activity.load();
  }, STATS_EVERY_MS);
}

byId('key-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = /** @type {HTMLInputElement} */ (byId('key-input'));
  const key = input.value.trim();
  if (key === '') return;
  keys.set(key);
  input.value = '';
  // One call proves the key before the console opens; a 401 brings the form back with a message.
  try {
    await api.get('stats');
  } catch (error) {
    if (error.status !== 401) byId('key-error').textContent = error.message;
    return;
  }
  await open();
});

signOut.addEventListener('click', () => {
  keys.clear();
  detail.hide();
  askForKey();
});

if (keys.get()) void open();
else askForKey();
