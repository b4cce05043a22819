/**
 * The PKCS#11 numbers the agent uses (values from the PKCS#11 v2.40 headers). Kept here so code
 * outside the worker never loads the native addon; test/agent checks them against pkcs11js.
 */
export const CKF_SERIAL_SESSION = 0x4;
export const CKU_USER = 1;
export const CKU_CONTEXT_SPECIFIC = 2;

export const CKO_CERTIFICATE = 1;
export const CKO_PUBLIC_KEY = 2;
export const CKO_PRIVATE_KEY = 3;

export const CKA_CLASS = 0x0;
export const CKA_TOKEN = 0x1;
export const CKA_LABEL = 0x3;
export const CKA_VALUE = 0x11;
export const CKA_CERTIFICATE_TYPE = 0x80;
export const CKA_KEY_TYPE = 0x100;
export const CKA_ID = 0x102;
export const CKA_SIGN = 0x108;
export const CKA_ALWAYS_AUTHENTICATE = 0x202;

export const CKC_X_509 = 0;
export const CKK_RSA = 0;
export const CKK_EC = 3;

export const CKM_RSA_PKCS = 0x1;
export const CKM_SHA256_RSA_PKCS = 0x40;
export const CKM_ECDSA = 0x1041;
export const CKM_ECDSA_SHA256 = 0x1044;

// CK_TOKEN_INFO.flags
export const CKF_LOGIN_REQUIRED = 0x4;
export const CKF_USER_PIN_INITIALIZED = 0x8;
export const CKF_PROTECTED_AUTHENTICATION_PATH = 0x100;
export const CKF_TOKEN_INITIALIZED = 0x400;
export const CKF_USER_PIN_COUNT_LOW = 0x10000;
export const CKF_USER_PIN_FINAL_TRY = 0x20000;
export const CKF_USER_PIN_LOCKED = 0x40000;

// CK_RV
export const CKR_GENERAL_ERROR = 0x5;
export const CKR_DEVICE_ERROR = 0x30;
export const CKR_DEVICE_REMOVED = 0x32;
export const CKR_FUNCTION_CANCELED = 0x50;
export const CKR_PIN_INCORRECT = 0xa0;
export const CKR_PIN_INVALID = 0xa1;
export const CKR_PIN_LEN_RANGE = 0xa2;
export const CKR_PIN_EXPIRED = 0xa3;
export const CKR_PIN_LOCKED = 0xa4;
export const CKR_SESSION_HANDLE_INVALID = 0xb3;
export const CKR_TOKEN_NOT_PRESENT = 0xe0;
export const CKR_TOKEN_NOT_RECOGNIZED = 0xe1;
export const CKR_USER_ALREADY_LOGGED_IN = 0x100;
export const CKR_CRYPTOKI_ALREADY_INITIALIZED = 0x191;
