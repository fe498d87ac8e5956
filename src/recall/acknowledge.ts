// Pure acknowledgements and greetings need no recall: no embedding, no judge.
// A short utterance with content ("好 直接送 v2 分支") is not one.

/**
 * The acknowledgement phrases. A function, not a module constant: a constant is built once at
 * import, where mutation testing (npm run mutate) cannot change it, so every phrase in it was an
 * untestable survivor; a call per turn costs a few microseconds.
 */
function ackPhrases(): string[] {
  return [
    // English
    'ok',
    'okay',
    'k',
    'kk',
    'yes',
    'yep',
    'yeah',
    'yup',
    'sure',
    'right',
    'fine',
    'cool',
    'great',
    'nice',
    'perfect',
    'awesome',
    'got it',
    'gotcha',
    'understood',
    'noted',
    'roger',
    'ack',
    'thanks',
    'thank you',
    'thx',
    'ty',
    'cheers',
    'sounds good',
    'looks good',
    'lgtm',
    'good',
    'alright',
    'all right',
    'will do',
    'done',
    'hi',
    'hello',
    'hey',
    'good night',
    'good evening',
    'morning',
    'bye',
    'goodbye',
    'see you',
    'thanks a lot',
    'many thanks',
    'no problem',
    'np',
    'makes sense',
    'sounds great',
    'nice one',
    'go ahead',
    'continue',
    'go on',
    'yes please',
    'sure thing',
    ...chineseAcks(),
  ];
}

/** The Chinese ones (a function of their own: one list was longer than a function may be). */
function chineseAcks(): string[] {
  return [
    '好',
    '好的',
    '好滴',
    '好哒',
    '好吧',
    '行',
    '行吧',
    '可以',
    '嗯',
    '嗯嗯',
    '哦',
    '噢',
    '收到',
    '了解',
    '明白',
    '明白了',
    '知道了',
    '懂了',
    '谢谢',
    '多谢',
    '感谢',
    '谢啦',
    '谢了',
    '辛苦了',
    '辛苦',
    '早',
    '早安',
    '早上好',
    '午安',
    '晚安',
    '晚上好',
    '你好',
    '您好',
    '嗨',
    '哈喽',
    '对',
    '对的',
    '是的',
    '没问题',
    '没事',
    '好嘞',
    '得嘞',
    'ok了',
    '继续',
    '拜拜',
    '再见',
  ];
}

/** A sequence of acknowledgement phrases, one space between them ("ok thank you", "got it thanks a lot"). */
function ackSequence(): RegExp {
  const phrase = `(?:${ackPhrases().join('|')})`;
  // no flag: the phrases are literal text, matched the same with or without the u flag
  return new RegExp(`^${phrase}(?: ${phrase})*$`);
}

/** True for a pure acknowledgement or greeting, in English or Chinese, punctuated or not. */
export function isAcknowledgement(text: string): boolean {
  const t = text.normalize('NFKC').trim().toLowerCase();
  if (t.length > 40) return false;
  // every part (emoji dropped) belongs to an acknowledgement phrase: "好,收到", "ok thanks", "thanks!! 👍";
  // nothing left (empty, only emoji or punctuation) says nothing either
  // separators between the parts of a compound acknowledgement ("好,收到", "ok, thanks!")
  const parts = t.split(/[\s,，。.!！?？~～、;；:：…]+/u).filter((p) => p && !isPureEmoji(p));
  return parts.length === 0 || ackSequence().test(parts.join(' '));
}

/** Emoji and nothing else — but a keycap ("1️⃣", "#️⃣") answers something: digits, # and * are emoji components too. */
function isPureEmoji(text: string): boolean {
  return /^[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Emoji_Component}\u200d\ufe0f\s]+$/u.test(text) && !/[0-9#*]/.test(text);
}
