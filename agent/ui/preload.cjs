// Electron preload for the agent's windows: the only bridge between their HTML and the agent
// process (contextIsolation on, no Node in the pages).
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a sandboxed Electron preload is CommonJS
const { contextBridge, ipcRenderer } = require('electron');

contextBridge.exposeInMainWorld('tawqiAgent', {
  getRequest: () => ipcRenderer.invoke('tawqi:request'),
  answer: (value) => ipcRenderer.send('tawqi:answer', value),
  listTrusted: () => ipcRenderer.invoke('tawqi:trust:list'),
  fetchKey: (origin) => ipcRenderer.invoke('tawqi:trust:fetch', origin),
  trust: (origin, fingerprint) => ipcRenderer.invoke('tawqi:trust:add', origin, fingerprint),
  remove: (origin) => ipcRenderer.invoke('tawqi:trust:remove', origin),
});
