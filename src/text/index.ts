export { tokenize, queryTokens, distinctTokens, lightStem, englishStem } from './tokenize.js';
export { isMainlyCjk, isCjkChar, isAscii, lowerNfkc } from './script.js';
export { ENGLISH_STOP_WORDS, CHINESE_STOP_CHARS } from './stopwords.js';
export { findTextFault, hasLoneSurrogate, headOf, keepingTheRule, tailOf, textFault } from './well-formed.js';
