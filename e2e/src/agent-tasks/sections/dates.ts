// Date pickers: a JS calendar widget on a read-only field (month by month,
// past and booked days disabled), a check-in/check-out pair of them, and a
// native date input. The site's "today" is fixed at 10 November 2026 so the
// tasks' dates stay ahead of it.
import type { Page } from 'playwright-core';
import { errorList, esc, field, page, type Visit } from '../site.js';
import { recorded, type Section } from '../task.js';
import { MONTHS } from './simple/kit.js';

const TODAY = '2026-11-10';
const FULL_SATURDAYS = ['2026-11-14', '2026-11-28', '2026-12-05', '2026-12-12'];

/** Upgrades every input[data-calendar] into a calendar that writes the ISO date into the hidden input it names. */
const CALENDAR = `const MONTHS = ${JSON.stringify(MONTHS)};
const pad = (n) => String(n).padStart(2, '0');
for (const input of document.querySelectorAll('input[data-calendar]')) {
  const hidden = document.getElementById(input.dataset.calendar);
  const today = input.dataset.today, off = (input.dataset.off || '').split(',');
  const weekdays = input.dataset.weekdays ? input.dataset.weekdays.split(',').map(Number) : null;
  const pop = document.createElement('div');
  pop.className = 'calendar'; pop.hidden = true; pop.setAttribute('role', 'dialog'); pop.setAttribute('aria-label', 'Choose a date');
  input.after(pop);
  let y = Number(today.slice(0, 4)), m = Number(today.slice(5, 7)) - 1;
  const draw = () => {
    const lead = (new Date(Date.UTC(y, m, 1)).getUTCDay() + 6) % 7;
    const days = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
    let cells = '<tr>' + '<td></td>'.repeat(lead);
    for (let d = 1; d <= days; d++) {
      const iso = y + '-' + pad(m + 1) + '-' + pad(d);
      const shut = iso < today || off.includes(iso) || (weekdays && !weekdays.includes(new Date(Date.UTC(y, m, d)).getUTCDay()));
      cells += '<td><button type="button" data-day="' + iso + '" aria-label="' + d + ' ' + MONTHS[m] + ' ' + y + '"' +
        (shut ? ' disabled' : '') + '>' + d + '</button></td>' + ((lead + d) % 7 === 0 ? '</tr><tr>' : '');
    }
    pop.innerHTML = '<div><button type="button" data-step="-1" aria-label="Previous month">&lsaquo;</button> <strong>' +
      MONTHS[m] + ' ' + y + '</strong> <button type="button" data-step="1" aria-label="Next month">&rsaquo;</button></div>' +
      '<table><tr><th>Mo</th><th>Tu</th><th>We</th><th>Th</th><th>Fr</th><th>Sa</th><th>Su</th></tr>' + cells + '</tr></table>';
  };
  input.addEventListener('click', () => { draw(); pop.hidden = !pop.hidden; });
  pop.addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (!b) return;
    if (b.dataset.step) {
      m += Number(b.dataset.step);
      if (m < 0) { m = 11; y--; }
      if (m > 11) { m = 0; y++; }
      return draw();
    }
    hidden.value = b.dataset.day; input.value = b.getAttribute('aria-label'); pop.hidden = true;
  });
}`;

/** A read-only field that opens the calendar; the form posts the ISO date as `name`. */
function calendarField(label: string, name: string, extra = ''): string {
  return `<p><label for="${name}-shown">${esc(label)}</label>
<input id="${name}-shown" readonly placeholder="Choose a date" data-calendar="${name}" data-today="${TODAY}" ${extra}>
<input type="hidden" name="${name}" id="${name}"></p>`;
}

const isDate = (value: string | null) => /^\d{4}-\d{2}-\d{2}$/.test(value ?? '') && (value as string) >= TODAY;

function options(values: string[]): string {
  return values.map((v) => `<option>${esc(v)}</option>`).join('');
}

const TIMES = ['09:00', '09:30', '10:00', '10:30', '11:00', '11:30', '14:00', '14:30', '15:00', '15:30'];

function clinicPage(v: Visit, errors: string[] = []): string {
  return page(
    'Smile Street Dental',
    'Book an appointment',
    `${errorList(errors)}<form method="post" action="${v.base}/clinic/book">${field('Patient name', 'name')}
<label>Treatment <select name="treatment"><option>Check-up</option><option>Cleaning</option><option>Whitening</option></select></label>
${calendarField('Date', 'date')}<label>Time <select name="time">${options(TIMES)}</select></label>
<button>Book</button></form>`,
    CALENDAR,
  );
}

function hotelPage(v: Visit, errors: string[] = []): string {
  return page(
    'Hotel Marisol',
    'Book a room',
    `${errorList(errors)}<form method="post" action="${v.base}/hotel/rooms">${calendarField('Check-in', 'checkIn')}
${calendarField('Check-out', 'checkOut')}<label>Adults <select name="adults">${options(['1', '2', '3', '4'])}</select></label>
<label>Room <select name="room"><option>Double</option><option>Twin</option><option>Suite</option></select></label>
<button>Reserve</button></form>`,
    CALENDAR,
  );
}

function potteryPage(v: Visit, errors: string[] = []): string {
  return page(
    'Clay Corner Studio',
    'Saturday wheel-throwing class',
    `<p>Three hours at the wheel, clay and firing included. Classes run on Saturdays; booked-out days cannot be chosen.</p>
${errorList(errors)}<form method="post" action="${v.base}/classes/pottery">${field('Your name', 'name')}
${calendarField('Class date', 'date', `data-weekdays="6" data-off="${FULL_SATURDAYS.join(',')}"`)}
<label>Places <select name="places">${options(['1', '2', '3'])}</select></label><button>Book places</button></form>`,
    CALENDAR,
  );
}

function deliveryPage(v: Visit, errors: string[] = []): string {
  const slot = (value: string, label: string) =>
    `<label><input type="radio" name="slot" value="${value}"> ${label}</label>`;
  return page(
    'Parcelway',
    'Choose a delivery day for order A-2291',
    `${errorList(errors)}<form method="post" action="${v.base}/delivery/schedule">
<label>Delivery date <input type="date" name="date" min="${TODAY}"></label>
<fieldset><legend>Time slot</legend>${slot('morning', 'Morning, 8:00 to 12:00')}${slot('afternoon', 'Afternoon, 12:00 to 17:00')}
${slot('evening', 'Evening, 17:00 to 21:00')}</fieldset><button>Confirm delivery</button></form>`,
  );
}

export const dates: Section = {
  routes: [
    { path: '/clinic/book', handle: (v) => clinicPage(v) },
    {
      method: 'POST',
      path: '/clinic/book',
      handle(v) {
        if (!isDate(v.form.get('date'))) return clinicPage(v, ['Choose a date for the appointment.']);
        v.record('appointment', Object.fromEntries(v.form));
        return page('Smile Street Dental', 'Booked', `<p>See you on ${esc(v.form.get('date'))}.</p>`);
      },
    },
    { path: '/hotel/rooms', handle: (v) => hotelPage(v) },
    {
      method: 'POST',
      path: '/hotel/rooms',
      handle(v) {
        const [checkIn, checkOut] = [v.form.get('checkIn'), v.form.get('checkOut')];
        if (!isDate(checkIn) || !isDate(checkOut) || (checkOut as string) <= (checkIn as string))
          return hotelPage(v, ['Choose a check-in date and a later check-out date.']);
        v.record('reservation', Object.fromEntries(v.form));
        return page(
          'Hotel Marisol',
          'Reserved',
          `<p>Your room is reserved from ${esc(checkIn)} to ${esc(checkOut)}.</p>`,
        );
      },
    },
    { path: '/classes/pottery', handle: (v) => potteryPage(v) },
    {
      method: 'POST',
      path: '/classes/pottery',
      handle(v) {
        const date = v.form.get('date');
        const saturday = isDate(date) && new Date(`${date}T00:00:00Z`).getUTCDay() === 6;
        if (!saturday || FULL_SATURDAYS.includes(date as string))
          return potteryPage(v, ['Choose a Saturday with places left.']);
        v.record('class-booking', Object.fromEntries(v.form));
        return page('Clay Corner Studio', 'Booked', `<p>Your places on ${esc(date)} are booked.</p>`);
      },
    },
    { path: '/delivery/schedule', handle: (v) => deliveryPage(v) },
    {
      method: 'POST',
      path: '/delivery/schedule',
      handle(v) {
        if (!isDate(v.form.get('date')) || !v.form.get('slot'))
          return deliveryPage(v, ['Choose a date and a time slot.']);
        v.record('delivery', Object.fromEntries(v.form));
        return page('Parcelway', 'Delivery confirmed', `<p>We will deliver on ${esc(v.form.get('date'))}.</p>`);
      },
    },
  ],
  tasks: [
    {
      id: 'date-dental-appointment',
      kind: 'date-picker',
      task: 'Book a dental check-up for Ana Ruiz on 17 March 2027 at 10:30.',
      path: '/clinic/book',
      check: ({ records }) =>
        recorded(records, 'appointment', {
          name: 'Ana Ruiz',
          treatment: 'Check-up',
          date: '2027-03-17',
          time: '10:30',
        }),
    },
    {
      id: 'date-hotel-stay',
      kind: 'date-picker',
      task: 'Reserve a double room for two adults, arriving on 3 February 2027 and leaving on 6 February 2027.',
      path: '/hotel/rooms',
      check: ({ records }) =>
        recorded(records, 'reservation', {
          checkIn: '2027-02-03',
          checkOut: '2027-02-06',
          adults: '2',
          room: 'Double',
        }),
    },
    {
      id: 'date-first-free-saturday',
      kind: 'date-picker',
      task: 'Book one place for Sam Lee in the pottery class on the earliest Saturday in December 2026 that is not fully booked.',
      path: '/classes/pottery',
      check: ({ records }) => recorded(records, 'class-booking', { name: 'Sam Lee', date: '2026-12-19', places: '1' }),
    },
    {
      id: 'date-native-delivery',
      kind: 'date-picker',
      task: 'Have order A-2291 delivered on 24 December 2026 in the morning.',
      path: '/delivery/schedule',
      check: ({ records }) => recorded(records, 'delivery', { date: '2026-12-24', slot: 'morning' }),
    },
  ],
  solutions: {
    async 'date-dental-appointment'(p) {
      await p.getByLabel('Patient name').fill('Ana Ruiz');
      await pickDate(p, 'Date', '2027-03-17');
      await p.getByLabel('Time').selectOption('10:30');
      await p.getByRole('button', { name: 'Book', exact: true }).click();
      await p.getByText('See you on').waitFor();
    },
    async 'date-hotel-stay'(p) {
      await pickDate(p, 'Check-in', '2027-02-03');
      await pickDate(p, 'Check-out', '2027-02-06');
      await p.getByLabel('Adults').selectOption('2');
      await p.getByRole('button', { name: 'Reserve' }).click();
      await p.getByText('Your room is reserved').waitFor();
    },
    async 'date-first-free-saturday'(p) {
      await p.getByLabel('Your name').fill('Sam Lee');
      await p.getByLabel('Class date').click();
      await p.getByRole('button', { name: 'Next month' }).click();
      const saturdays = p.getByRole('dialog').locator('td:nth-child(6) button:enabled');
      await saturdays.first().click();
      await p.getByRole('button', { name: 'Book places' }).click();
      await p.getByText('are booked').waitFor();
    },
    async 'date-native-delivery'(p) {
      await p.getByLabel('Delivery date').fill('2026-12-24');
      await p.getByLabel('Morning').check();
      await p.getByRole('button', { name: 'Confirm delivery' }).click();
      await p.getByText('We will deliver').waitFor();
    },
  },
};

/** Opens the calendar of the field labelled `label`, steps to the month and clicks the day. */
async function pickDate(p: Page, label: string, iso: string): Promise<void> {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  const day = p.getByRole('button', { name: `${d} ${MONTHS[m - 1]} ${y}`, exact: true });
  await p.getByLabel(label, { exact: true }).click();
  for (let i = 0; i < 24 && !(await day.isVisible()); i++) await p.getByRole('button', { name: 'Next month' }).click();
  await day.click();
}
