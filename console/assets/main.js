import { createApi } from './api.js';
import { createBulkReplay } from './bulk.js';
import { createCalendars } from './calendars.js';
import { createDeliveries } from './deliveries.js';
import { createDeliveryDetail } from './delivery-detail.js';
import { byId, showStatus } from './dom.js';
import { createEvents } from './events.js';
import { createKeyStore } from './key-store.js';
import { createStats } from './stats.js';

const STATS_EVERY_MS = 10_000;

const keys = createKeyStore();
const keyPanel = byId('key-panel');
const consoleMain = byId('console');
const signOut = byId('sign-out');
let statsTimer;

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

const stats = createStats(api);
// The modules below call each other only from event handlers, after all of them exist.
const refreshAll = async () => {
  await Promise.all([stats.refresh(), deliveries.load()]);
};
const detail = createDeliveryDetail({ api, onChanged: refreshAll, openEvent: (id) => (selectTab('events'), void events.show(id)) });
const deliveries = createDeliveries({ api, detail });
const events = createEvents({ api, openDelivery: (id) => (selectTab('deliveries'), void detail.show(id)) });
createBulkReplay({ api, onChanged: refreshAll });
const calendars = createCalendars({ api });

function selectTab(name) {
  for (const tab of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('button.tab')))
    tab.setAttribute('aria-pressed', String(tab.dataset.tab === name));
  byId('deliveries-view').hidden = name !== 'deliveries';
  byId('events-view').hidden = name !== 'events';
  byId('calendars-view').hidden = name !== 'calendars';
  if (name === 'events') void events.load();
  if (name === 'calendars') void calendars.load();
}
for (const tab of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('button.tab')))
  tab.addEventListener('click', () => selectTab(tab.dataset.tab));

async function open() {
  keyPanel.hidden = true;
  consoleMain.hidden = false;
  signOut.hidden = false;
  showStatus('');
  await refreshAll();
  clearInterval(statsTimer);
  statsTimer = setInterval(() => void stats.refresh(), STATS_EVERY_MS);
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
