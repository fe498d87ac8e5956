// Privacy (issue 33): finding secrets and replacing them with placeholders before an event is
// built, and the local vault that keeps the values. Sealing and erasure live beside them.
export { findSecrets, placeholder, placeholdersIn, redactText, isSecretKind, PLACEHOLDER_PATTERN, type Redaction, type SecretFinding } from './detect.js';
export { SECRET_KINDS, SECRET_RULES, isTemplate, type SecretKind, type SecretRule } from './rules.js';
export { TEXT_FIELDS, UNLISTED_TYPE_FIELDS, mapTextFields, type TextPath } from './fields.js';
export { redactEventData, redactWithVault, secretRedactor, type SecretRedactor, type WriteGuard } from './redact-event.js';
export { SecretVault, openVault, vaultDir, type VaultEntry } from './vault.js';
export { FileKeyStore, KID_LENGTH, SEALED_PREFIX, kidsIn, exportKeys, importKeys, keysDir, readKeysFile, writeKeysFile, type DataKey, type SealKeyStore } from './seal-keys.js';
export { PURGED_TEXT, SEALED_FIELDS, isSealed, openRecord, openText, sealer, sealOptionsFromEnv, unitMatcher, type Sealer, type SealOptions } from './seal.js';
export { revealSecret, revealSecretSchema, placeholderId, type RevealedSecret } from './reveal.js';
