/**
 * The Electron shell: a tray app that starts the core, shows the trust, consent and PIN windows
 * (plain HTML in agent/ui, tested in Chromium), and starts with the user's session.
 *
 * Electron is an optional dependency: this file never imports it statically (the types are in
 * electronTypes.ts) so the agent builds where Electron could not be installed. The core does not
 * import Electron at all. This shell never reads the CLI's TAWQI_AGENT_TEST_* variables.
 */
import { mkdirSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAgent, type RunningAgent } from '../core/agent.js';
import { createLogger } from '../core/log.js';
import { fetchServerKey, type FetchedKey } from '../core/trust.js';
import type { AgentNotice, AgentUi, ConsentRequest, PinRequest } from '../core/ui.js';
import type { BrowserWindow, ElectronModule, IpcMainEvent } from './electronTypes.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** agent/ui, from agent/dist/electron (built) or agent/src/electron (source). */
const UI_DIR = path.resolve(here, '../../ui');

const electron = createRequire(import.meta.url)('electron') as ElectronModule;
const { app, BrowserWindow: Window, ipcMain, Menu, Tray, nativeImage, Notification } = electron;

interface OpenWindow {
  window: BrowserWindow;
  request: unknown;
  answer: (value: unknown) => void;
}

/** Windows by webContents id: what each asked for and where its answer goes. */
const windows = new Map<number, OpenWindow>();

function openWindow(page: string, request: unknown, size: { width: number; height: number }, signal?: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    const window = new Window({
      ...size,
      title: 'Tawqi Agent',
      show: false,
      resizable: true,
      alwaysOnTop: true,
      autoHideMenuBar: true,
      webPreferences: {
        preload: path.join(UI_DIR, 'preload.cjs'),
        contextIsolation: true,
        nodeIntegration: false,
        sandbox: true,
        plugins: true,
      },
    });
    const id = window.webContents.id;
    let settled = false;
    const settle = (value: unknown): void => {
      if (settled) return;
      settled = true;
      windows.delete(id);
      if (!window.isDestroyed()) window.close();
      resolve(value);
    };
    windows.set(id, { window, request, answer: settle });
    window.on('closed', () => settle(null));
    window.once('ready-to-show', () => {
      window.show();
      window.focus();
    });
    signal?.addEventListener('abort', () => settle(null), { once: true });
    void window.loadFile(path.join(UI_DIR, page));
  });
}

ipcMain.handle('tawqi:request', (event: IpcMainEvent) => windows.get(event.sender.id)?.request ?? {});
ipcMain.on('tawqi:answer', (event: IpcMainEvent, value: unknown) => windows.get(event.sender.id)?.answer(value));

class ElectronUi implements AgentUi {
  constructor(private readonly lang: string) {}

  async confirmSign(r: ConsentRequest, signal: AbortSignal): Promise<boolean> {
    const preview = r.preview.ok
      ? { ok: true, contentType: r.preview.contentType, base64: Buffer.from(r.preview.bytes).toString('base64') }
      : { ok: false, reason: r.preview.reason };
    const answer = await openWindow('consent.html', { ...r, preview, lang: this.lang }, { width: 620, height: 760 }, signal);
    return answer === true;
  }

  async askPin(r: PinRequest, signal: AbortSignal): Promise<Uint8Array | null> {
    const answer = (await openWindow('pin.html', { ...r, lang: this.lang }, { width: 460, height: 420 }, signal)) as {
      pin?: unknown;
    } | null;
    if (!answer || typeof answer.pin !== 'string' || answer.pin.length === 0) return null;
    // The renderer's string cannot be wiped; the bytes the core gets are wiped after the login.
    return new TextEncoder().encode(answer.pin); // its own buffer (Buffer.from may use the shared pool)
  }

  showPinPad(r: PinRequest): () => void {
    const controller = new AbortController();
    void openWindow('pin.html', { ...r, lang: this.lang }, { width: 460, height: 360 }, controller.signal);
    return () => controller.abort();
  }

  notify(n: AgentNotice): void {
    const body =
      n.kind === 'signed'
        ? `Signed “${n.title}” for ${n.origin}.`
        : n.kind === 'sign-failed'
          ? `Not signed (${n.code}).`
          : `A page from ${n.origin ?? 'an unknown site'} tried to use the agent. Trust its server from the tray menu first.`;
    new Notification({ title: 'Tawqi Agent', body }).show();
  }
}

/** Start with the user's session: login items on Windows and macOS, an XDG autostart entry on Linux. */
function setAutostart(enabled: boolean): void {
  if (process.platform === 'linux') {
    const dir = path.join(app.getPath('home'), '.config', 'autostart');
    const file = path.join(dir, 'tawqi-agent.desktop');
    if (!enabled) {
      rmSync(file, { force: true });
      return;
    }
    const exec = process.env.APPIMAGE ?? process.execPath;
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      file,
      `[Desktop Entry]\nType=Application\nName=Tawqi Agent\nExec="${exec}" --hidden\nX-GNOME-Autostart-enabled=true\nTerminal=false\n`,
    );
    return;
  }
  app.setLoginItemSettings({ openAtLogin: enabled, openAsHidden: true });
}

function autostartEnabled(): boolean {
  if (process.platform === 'linux') return existsSync(path.join(app.getPath('home'), '.config', 'autostart', 'tawqi-agent.desktop'));
  return app.getLoginItemSettings().openAtLogin;
}

async function main(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  await app.whenReady();
  app.dock?.hide();
  app.on('window-all-closed', () => {
    // a tray app keeps running without windows
  });

  const lang = app.getLocale().startsWith('ar') ? 'ar' : 'en';
  let agent: RunningAgent;
  try {
    agent = await startAgent({ ui: new ElectronUi(lang), log: createLogger('info') });
  } catch (error) {
    new Notification({ title: 'Tawqi Agent', body: `Could not start: ${(error as Error).message}` }).show();
    app.quit();
    return;
  }
  if (!existsSync(path.join(agent.dataDir, '.autostart-set'))) {
    setAutostart(true); // on by default, once; the tray menu turns it off
    writeFileSync(path.join(agent.dataDir, '.autostart-set'), '');
  }

  // Trust window: the key is fetched here, shown, and stored only when the user confirms the same fingerprint.
  const fetched = new Map<string, FetchedKey>();
  ipcMain.handle('tawqi:trust:list', () => agent.trust.list().map(({ key_pem: _k, ...rest }) => rest));
  ipcMain.handle('tawqi:trust:fetch', async (_e: IpcMainEvent, origin: unknown) => {
    try {
      const key = await fetchServerKey(String(origin));
      fetched.set(key.origin, key);
      return { origin: key.origin, fingerprint: key.fingerprint };
    } catch (error) {
      return { error: (error as Error).message };
    }
  });
  ipcMain.handle('tawqi:trust:add', (_e: IpcMainEvent, origin: unknown, fingerprint: unknown) => {
    const key = fetched.get(String(origin));
    if (!key || key.fingerprint !== fingerprint) return { error: 'fetch the key again' };
    fetched.delete(key.origin);
    agent.trust.add(key);
    return { ok: true };
  });
  ipcMain.handle('tawqi:trust:remove', (_e: IpcMainEvent, origin: unknown) => ({ ok: agent.trust.remove(String(origin)) }));

  const icon = nativeImage.createFromPath(path.join(UI_DIR, 'tray.png'));
  const tray = new Tray(icon.isEmpty() ? nativeImage.createEmpty() : icon);
  tray.setToolTip(`Tawqi Agent — ws://127.0.0.1:${agent.port}`);
  const rebuildMenu = (): void => {
    tray.setContextMenu(
      Menu.buildFromTemplate([
        { label: `Listening on 127.0.0.1:${agent.port}`, enabled: false },
        { type: 'separator' },
        { label: 'Trusted servers…', click: () => void openWindow('trust.html', { lang }, { width: 620, height: 560 }) },
        {
          label: 'Start with my session',
          type: 'checkbox',
          checked: autostartEnabled(),
          click: (item) => {
            setAutostart(item.checked);
            rebuildMenu();
          },
        },
        { type: 'separator' },
        { label: 'Quit', click: () => void agent.close().finally(() => app.quit()) },
      ]),
    );
  };
  rebuildMenu();
}

void main();
