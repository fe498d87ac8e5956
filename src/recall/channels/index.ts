// Every channel, in fusion order. Adding a lane = a file in this folder, a line here, and
// its weight in config.channel_weights.
import type { Channel } from './channel.js';
import { graphChannel } from './graph.js';
import { keywordChannel } from './keyword.js';
import { vectorChannel } from './vector.js';

export type { Channel, ChannelInput, ChannelOutput } from './channel.js';
export { ownVisibleTraces } from './own-session.js';
export const CHANNELS: readonly Channel[] = [keywordChannel, graphChannel, vectorChannel];
