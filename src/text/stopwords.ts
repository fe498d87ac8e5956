// Stop words ignored by the keyword lanes. English: the usual function words plus
// question words (they carry no topic). Chinese: function characters; a CJK bigram
// made only of these is dropped.
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are aren as at be because been before being below between both but by
  can cannot could couldn did didn do does doesn doing don down during each few for from further had hadn has hasn have haven
  having he her here hers herself him himself his how i if in into is isn it its itself just let me more most mustn my myself
  no nor not now of off on once only or other ought our ours ourselves out over own same shan she should shouldn so some such
  than that the their theirs them themselves then there these they this those through to too under until up very was wasn we
  were weren what when where which while who whom why will with won would wouldn you your yours yourself yourselves
  s t d ll m o re ve y also yes ok okay oh hey hi hello please thanks thank really`
    .split(/\s+/)
    .filter(Boolean),
);

export const CHINESE_STOP_CHARS: ReadonlySet<string> = new Set([
  ...'的了是在和与及或也就都而且但并把被让给对从向于以为之其这那哪些个么吗呢吧啊呀哦嗯着过得地很还又再要会能可我你他她它们们啥怎么什谁何',
]);

export function isEnglishStopWord(word: string): boolean {
  return ENGLISH_STOP_WORDS.has(word);
}
