// Pure deciders for the list streams: one stream per blacklist entry and one per saved (customer, device).
import { NotFoundError } from '../errors.js';
import type { Decider } from '../store/index.js';
import { LISTS, type DeviceInfo, type ListKind, type MonitoringEvent } from './events.js';

type ListEvent = Extract<MonitoringEvent, { type: 'BlacklistEntryAdded' | 'BlacklistEntryRemoved' }>;
export type BlacklistCommand = { type: 'AddToBlacklist' | 'RemoveFromBlacklist'; data: { list: ListKind; value: string } };

/** Adding a listed entry is a no-op (idempotent); removing an unlisted one is a NotFoundError. */
export const blacklistDecider: Decider<{ listed: boolean }, BlacklistCommand, ListEvent> = {
  initialState: () => ({ listed: false }),
  decide(command, state) {
    if (command.type === 'AddToBlacklist') return state.listed ? [] : [{ type: 'BlacklistEntryAdded', data: command.data }];
    if (!state.listed) throw new NotFoundError(`${LISTS[command.data.list].label} ${command.data.value} is not on the blacklist`);
    return [{ type: 'BlacklistEntryRemoved', data: command.data }];
  },
  evolve: (_state, event) => ({ listed: event.type === 'BlacklistEntryAdded' }),
};

type DeviceEvent = Extract<MonitoringEvent, { type: 'CustomerDeviceSaved' }>;
export type SaveDeviceCommand = { type: 'SaveDevice'; data: { customerId: string; device: DeviceInfo } };

const sameDevice = (a: DeviceInfo, b: DeviceInfo) =>
  (['deviceId', 'manufacturer', 'model', 'name', 'osName', 'osVersion'] as const).every((k) => (a[k] ?? null) === (b[k] ?? null));

/** Saving the same device details again records nothing; changed details (an OS upgrade) are a new event. */
export const deviceDecider: Decider<{ device: DeviceInfo | undefined }, SaveDeviceCommand, DeviceEvent> = {
  initialState: () => ({ device: undefined }),
  decide: (command, state) =>
    state.device && sameDevice(state.device, command.data.device) ? [] : [{ type: 'CustomerDeviceSaved', data: command.data }],
  evolve: (_state, event) => ({ device: event.data.device }),
};
