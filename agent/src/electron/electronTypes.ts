/**
 * The small part of Electron's API the tray shell uses, typed here so the agent builds and
 * typechecks on machines where Electron is not installed (it is an optional dependency whose
 * binary download may be impossible). main.ts loads the real module at run time.
 */
export interface WebContents {
  id: number;
  send(channel: string, ...args: unknown[]): void;
}

export interface BrowserWindow {
  webContents: WebContents;
  loadFile(file: string): Promise<void>;
  on(event: 'closed', listener: () => void): this;
  once(event: 'ready-to-show', listener: () => void): this;
  show(): void;
  focus(): void;
  close(): void;
  isDestroyed(): boolean;
}

export interface BrowserWindowOptions {
  width: number;
  height: number;
  title: string;
  show: boolean;
  resizable: boolean;
  alwaysOnTop: boolean;
  autoHideMenuBar: boolean;
  webPreferences: {
    preload: string;
    contextIsolation: true;
    nodeIntegration: false;
    sandbox: boolean;
    plugins: boolean;
  };
}

export interface IpcMainEvent {
  sender: WebContents;
}

export interface MenuItemOptions {
  label?: string;
  type?: 'normal' | 'separator' | 'checkbox';
  enabled?: boolean;
  checked?: boolean;
  click?: (item: { checked: boolean }) => void;
}

export interface ElectronModule {
  app: {
    whenReady(): Promise<void>;
    requestSingleInstanceLock(): boolean;
    quit(): void;
    on(event: 'window-all-closed' | 'before-quit' | 'second-instance', listener: () => void): void;
    getPath(name: 'userData' | 'home'): string;
    getLocale(): string;
    isPackaged: boolean;
    getLoginItemSettings(): { openAtLogin: boolean };
    setLoginItemSettings(settings: { openAtLogin: boolean; openAsHidden?: boolean }): void;
    dock?: { hide(): void };
  };
  BrowserWindow: new (options: BrowserWindowOptions) => BrowserWindow;
  Tray: new (image: unknown) => {
    setToolTip(text: string): void;
    setContextMenu(menu: unknown): void;
  };
  Menu: { buildFromTemplate(items: MenuItemOptions[]): unknown };
  nativeImage: { createFromPath(p: string): { isEmpty(): boolean }; createEmpty(): unknown };
  ipcMain: {
    handle(channel: string, listener: (event: IpcMainEvent, ...args: unknown[]) => unknown): void;
    on(channel: string, listener: (event: IpcMainEvent, ...args: unknown[]) => void): void;
  };
  Notification: new (options: { title: string; body: string }) => { show(): void };
}
