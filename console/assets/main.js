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
import { createImportForm } from './import-form.js';
import { createKeyStore } from './key-store.js';
import { createMeeting } from './meeting.js';
import { createPreview } from './preview.js';
import { createQuota } from './quota.js';
import { createRemapForm } from './remap-form.js';
import { createOrgLinks } from './salesforce-links.js';
import { createStats } from './stats.js';

const STATS_EVERY_MS = 10_000;
/** The chart changes by the hour: every sixth stats refresh is often enough. */
const ACTIVITY_EVERY = 6;
const VIEWS = ['deliveries', 'events', 'ambiguous', 'meeting', 'preview', 'remap', 'import', 'calendars'];

const keys = createKeyStore();
const keyPanel = byId('key-panel');
const consoleMain = byId('console');
const signOut = byId('sign-out');
let statsTimer;
let ticks = 0;

function askForKey(message = '') {
  clearInterval(statsTimer);
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
const activity = createActivity({ api });
const orgLinks = createOrgLinks({ api });
// The modules below call each other only from event handlers, after all of them exist.
const refreshAll = async () => {
  await Promise.all([stats.refresh(), deliveries.load()]);
};
const openDelivery = (id) => (selectTab('deliveries'), void detail.show(id, { watching: true, reveal: true }));
const openEvent = (id) => (selectTab('events'), void events.show(id));
// A meeting's page has no tab of its own: the delivery page and the ambiguous queue open it.
const openMeeting = (key) => (selectTab('meeting'), void meeting.show(key, { reveal: true }));
const detail = createDeliveryDetail({
  api,
  onChanged: refreshAll,
  openEvent,
  openMeeting,
  orgLinks,
  origin: createDeliveryOrigin({ api, orgLinks }),
});
const meeting = createMeeting({ api, orgLinks, openDelivery, openEvent, onChanged: refreshAll });
const ambiguous = createAmbiguous({ api, orgLinks, openMeeting, onChanged: refreshAll });
const deliveries = createDeliveries({ api, detail, orgLinks });
const preview = createPreview({ api });
const events = createEvents({ api, openDelivery, previewEvent: (id) => (selectTab('preview'), preview.forEvent(id)), orgLinks });
createBulkReplay({ api, onChanged: refreshAll });
const calendars = createCalendars({ api });
// A created delivery opens at once; the lists and counts catch up with it.
const onCreated = async (id) => {
  openDelivery(id);
  await refreshAll();
};
createRemapForm({ api, onCreated });
createImportForm({ api, onCreated });

function selectTab(name) {
  for (const tab of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('button.tab')))
    tab.setAttribute('aria-pressed', String(tab.dataset.tab === name));
  for (const view of VIEWS) byId(`${view}-view`).hidden = name !== view;
  if (name === 'events') void events.load();
  if (name === 'ambiguous') void ambiguous.load();
  if (name === 'calendars') void calendars.load();
}
for (const tab of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('button.tab')))
  tab.addEventListener('click', () => selectTab(tab.dataset.tab));

async function open() {
  keyPanel.hidden = true;
  consoleMain.hidden = false;
  signOut.hidden = false;
  showStatus('');
  await Promise.all([refreshAll(), activity.load()]);
  clearInterval(statsTimer);
  statsTimer = setInterval(() => {
    void stats.refresh();
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
