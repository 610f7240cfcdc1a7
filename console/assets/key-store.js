/** The admin key, entered once and kept for this tab only (sessionStorage: gone when the tab closes, never written to disk as localStorage would be). */
const STORAGE_KEY = 'crm-sync-bridge.admin-key';

export function createKeyStore(storage = window.sessionStorage) {
  return {
    get: () => storage.getItem(STORAGE_KEY),
    set: (key) => storage.setItem(STORAGE_KEY, key),
    clear: () => storage.removeItem(STORAGE_KEY),
  };
}
