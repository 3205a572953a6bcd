// A day of a Nigerian switch's traffic, generated from a seed: thousands of users, most behind a few mobile
// carrier addresses (carrier-grade NAT), empty strings where a field does not apply (`vasReceiver: ""` on a
// transfer, `receiverAccount: ""` on an airtime or bill payment), and a few percent of it suspicious by
// construction, each pattern named. Deterministic: the same seed gives the same day on every machine.
import { seededRandom } from '../../src/random.js';

export interface SwitchTransaction {
  readonly at: number;
  readonly request: Record<string, unknown>;
  /** The pattern it was built to show, null for ordinary traffic. */
  readonly suspicious: string | null;
}

export interface SwitchDay {
  readonly transactions: readonly SwitchTransaction[];
  /** Each user's saved device (the knownDevices list). */
  readonly knownDevices: ReadonlyMap<string, string>;
}

interface User {
  readonly id: string;
  readonly account: string;
  readonly device: string;
  readonly phone: string;
  readonly ip: string;
  readonly balance: number;
  readonly beneficiaries: readonly string[];
  readonly verified: boolean;
  readonly joined: string;
}

const DAY_START = Date.UTC(2024, 5, 11, 23); // midnight in Lagos (UTC+1)
const HOUR = 3_600_000;
/** Share of the day's transactions in each Lagos hour: quiet nights, busy mornings and evenings. */
const HOURLY = [1, 1, 1, 1, 1, 2, 4, 6, 8, 8, 7, 7, 7, 6, 6, 6, 7, 8, 8, 7, 5, 4, 3, 2];

export function switchDay(seed: number, userCount = 2_000, transactionCount = 6_000): SwitchDay {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  const digits = (n: number): string => Array.from({ length: n }, () => int(0, 9)).join('');
  // The carriers' pools (lists/carrier_ip_ranges.txt): a few dozen addresses for all their subscribers.
  const mtn = Array.from({ length: 40 }, () => `197.210.${int(0, 255)}.${int(1, 254)}`);
  const airtel = Array.from({ length: 25 }, () => `105.112.${int(64, 127)}.${int(1, 254)}`);
  const broadband = Array.from({ length: 250 }, (_, i) => `198.51.100.${i + 1}`);
  const receivers = Array.from({ length: 20_000 }, () => digits(10));

  const users: User[] = Array.from({ length: userCount }, (_, i) => {
    const network = random();
    return {
      id: `user-${i}`,
      account: digits(10),
      device: `dev-${i}`,
      phone: `080${digits(8)}`,
      ip: network < 0.55 ? pick(mtn) : network < 0.85 ? pick(airtel) : pick(broadband),
      balance: int(20, 2_000) * 1_000,
      beneficiaries: Array.from({ length: int(2, 5) }, () => pick(receivers)),
      verified: random() < 0.95,
      joined: new Date(Date.UTC(2019, 0, 1) + int(0, 1_900) * 24 * HOUR).toISOString(),
    };
  });

  const transactions: SwitchTransaction[] = [];
  let n = 0;
  const add = (at: number, user: User, patch: Patch, suspicious: string | null = null): void => {
    n++;
    transactions.push({ at, request: request(n, at, user, patch), suspicious });
  };
  const timeOfDay = (): number => {
    const total = HOURLY.reduce((a, b) => a + b, 0);
    let r = random() * total;
    let hour = 0;
    while (r >= HOURLY[hour]!) r -= HOURLY[hour++]!;
    return DAY_START + hour * HOUR + Math.floor(random() * HOUR);
  };

  for (let i = 0; i < transactionCount; i++) {
    const user = pick(users);
    if (random() < 0.25) {
      // Airtime, data or a bill: the phone or meter paid is the VAS receiver; no receiving account.
      add(timeOfDay(), user, {
        amount: int(1, 200) * 100,
        vasReceiver: random() < 0.8 ? user.phone : `080${digits(8)}`,
        receiverAccount: '',
      });
    } else {
      // Nobody sends more than half of what they have: the switch declines what the balance cannot cover.
      const amount = random() < 0.9 ? int(5, 500) * 100 : int(50, 400) * 1_000;
      add(timeOfDay(), user, { amount: Math.min(amount, user.balance / 2), receiverAccount: pick(user.beneficiaries) });
    }
  }

  // Suspicious by construction.
  const burst = (start: number, count: number, gapMs: number, each: (i: number, at: number) => void): void => {
    for (let i = 0; i < count; i++) each(i, start + i * gapMs);
  };
  const freshUser = (tag: string, i: number, device: string, ip: string): User => ({
    ...users[0]!,
    id: `user-${tag}-${i}`,
    account: digits(10),
    device,
    ip,
    verified: false,
    joined: new Date(DAY_START - 2 * 24 * HOUR).toISOString(),
    balance: 300_000,
  });
  // Mule accounts: a dozen different senders each within two hours.
  for (let m = 0; m < 3; m++) {
    const mule = digits(10);
    burst(timeOfDay(), 12, 5 * 60_000, (i, at) =>
      add(at, users[100 + m * 12 + i]!, { amount: int(20, 90) * 1_000, receiverAccount: mule }, 'mule fan-in'),
    );
  }
  // Device farms: six fresh, unverified accounts on one handset.
  for (let f = 0; f < 2; f++) {
    const device = `dev-farm-${f}`;
    const ip = pick(mtn);
    for (let u = 0; u < 6; u++) {
      const farmUser = freshUser(`farm${f}`, u, device, ip);
      burst(timeOfDay(), 2, 20 * 60_000, (_, at) =>
        add(at, farmUser, { amount: int(110, 180) * 1_000, receiverAccount: pick(receivers) }, 'device farm'),
      );
    }
  }
  // Account takeover: a new device empties the account.
  for (let t = 0; t < 15; t++) {
    const victim = users[300 + t]!;
    add(
      timeOfDay(),
      { ...victim, device: `dev-new-${t}`, balance: 600_000 },
      { amount: 580_000, receiverAccount: pick(receivers) },
      'account takeover',
    );
  }
  // Structuring: twice just under the NGN 5,000,000 reporting threshold.
  for (let s = 0; s < 5; s++) {
    const user = { ...users[400 + s]!, balance: 20_000_000 };
    burst(timeOfDay(), 2, 3 * HOUR, (_, at) =>
      add(at, user, { amount: int(4_600, 4_950) * 1_000, receiverAccount: pick(receivers), highLimits: true }, 'structuring'),
    );
  }
  // Bursts: six transfers to six accounts within ten minutes.
  for (let b = 0; b < 5; b++) {
    const user = users[500 + b]!;
    burst(timeOfDay(), 6, 90_000, (_, at) => add(at, user, { amount: int(10, 40) * 1_000, receiverAccount: pick(receivers) }, 'burst'));
  }
  // A proxy outside the carriers' pools: eight fresh accounts behind one address within the hour.
  const proxyStart = timeOfDay();
  for (let p = 0; p < 8; p++) {
    add(
      proxyStart + p * 6 * 60_000,
      freshUser('proxy', p, `dev-proxy-${p}`, '203.0.113.50'),
      { amount: int(60, 90) * 1_000, receiverAccount: pick(receivers) },
      'shared proxy',
    );
  }

  transactions.sort((a, b) => a.at - b.at);
  return { transactions, knownDevices: new Map(users.map((u) => [u.id, u.device])) };
}

interface Patch {
  readonly amount: number;
  readonly receiverAccount: string;
  readonly vasReceiver?: string;
  readonly highLimits?: boolean;
}

function request(n: number, at: number, user: User, p: Patch): Record<string, unknown> {
  const vas = p.vasReceiver !== undefined;
  return {
    transactionData: {
      reference: `NIP-20240612-${String(n).padStart(7, '0')}`,
      amount: p.amount,
      type: 'debit',
      currency: 'NGN',
      balanceBefore: user.balance,
      transactionDate: new Date(at).toISOString(),
      channel: vas ? 'vas' : 'bank transfer',
      narration: vas ? 'airtime' : '',
      senderAccount: user.account,
      receiverAccount: p.receiverAccount,
      vasReceiver: p.vasReceiver ?? '',
      vasProvider: vas ? 'MTN' : '',
      isExternalPayment: !vas,
      status: true,
      refund: false,
      isCheque: false,
      isInternalAccount: false,
      isStaffAccount: false,
      isDormantAccount: false,
      email: '',
      sessionId: `S${n}`,
      accountCurrency: 'NGN',
    },
    device: { deviceId: user.device, manufacturer: 'Tecno', name: 'Spark 10', osName: 'Android', osVersion: '13' },
    anonymizedUserData: {
      uniqueId: user.id,
      email: '',
      accountType: 'savings',
      businessCategory: '',
      state: 'Lagos',
      city: '',
      country: 'NG',
      isPhoneNumberVerified: true,
      isBanned: false,
      isIdentityVerified: user.verified,
      dateJoined: user.joined,
      age: 30,
      userRisk: '',
    },
    thirdPartyUserData: { uniqueId: '', cardPan: '', email: '' },
    location: { latitude: '', longitude: '', country: 'NG' },
    screeningData: { senderName: '', receiverName: '' },
    limits: p.highLimits
      ? { dailyLimit: 20_000_000, overdraftLimit: 0, individualTransactionLimit: 10_000_000 }
      : { dailyLimit: 5_000_000, overdraftLimit: 0, individualTransactionLimit: 1_000_000 },
    beneficiary: { isRegisteredBeneficiary: !vas, isNewBeneficiary: false },
    ipAddress: user.ip,
  };
}
