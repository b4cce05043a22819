/**
 * electron-builder afterSign hook: notarizes the signed macOS app with Apple's notary service when
 * credentials are in the environment, and does nothing otherwise (local and unsigned builds).
 *   APPLE_ID, APPLE_APP_SPECIFIC_PASSWORD, APPLE_TEAM_ID      (Apple ID), or
 *   APPLE_API_KEY (path to the .p8), APPLE_API_KEY_ID, APPLE_API_ISSUER   (App Store Connect API key)
 * @electron/notarize comes with electron-builder.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- electron-builder loads CommonJS configs and hooks
const path = require('node:path');

module.exports = async function notarizeApp(context) {
  if (context.electronPlatformName !== 'darwin') return;
  const env = process.env;
  const appleId = env.APPLE_ID && env.APPLE_APP_SPECIFIC_PASSWORD && env.APPLE_TEAM_ID;
  const apiKey = env.APPLE_API_KEY && env.APPLE_API_KEY_ID && env.APPLE_API_ISSUER;
  if (!appleId && !apiKey) {
    process.stdout.write('notarize: no Apple credentials in the environment, skipping notarization\n');
    return;
  }
  const appPath = path.join(context.appOutDir, `${context.packager.appInfo.productFilename}.app`);
  const { notarize } = await import('@electron/notarize');
  await notarize(
    appleId
      ? { appPath, appleId: env.APPLE_ID, appleIdPassword: env.APPLE_APP_SPECIFIC_PASSWORD, teamId: env.APPLE_TEAM_ID }
      : { appPath, appleApiKey: env.APPLE_API_KEY, appleApiKeyId: env.APPLE_API_KEY_ID, appleApiIssuer: env.APPLE_API_ISSUER },
  );
  process.stdout.write(`notarize: ${appPath} notarized\n`);
};
