// drive.js - drives s.cgi's page in Debian's headless chromium through
// playwright-core (tests/integration/web-e2e.sh runs it).
//   node drive.js URL QUERY OUTDIR [down]
// URL: s.cgi behind the web server; QUERY: a query with more than one page of
// results.  With "down" (searchd stopped): only the 503 page is checked.  Prints one line per check: "CHECK 1 what" (pass) or "CHECK 0
// what: detail" (fail), and saves screenshots into OUTDIR.
'use strict';
const { chromium } = require('playwright-core');

const [url, query, outdir, mode] = process.argv.slice(2);
let failed = 0;
function check(cond, what, detail) {
	console.log(`CHECK ${cond ? 1 : 0} ${what}${cond || detail === undefined ? '' : ': ' + detail}`);
	if (!cond) failed++;
}

async function results(page) {
	return page.$$eval('article.result', (as) => as.map((a) => ({
		title: a.querySelector('h2 a') ? a.querySelector('h2 a').textContent : '',
		href: a.querySelector('h2 a') ? a.querySelector('h2 a').getAttribute('href') : '',
		snippet: a.querySelector('.snippet') ? a.querySelector('.snippet').innerHTML : '',
	})));
}

async function run() {
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
	});
	const dialogs = [];
	if (mode === 'down') {
		try {
			const ctx = await browser.newContext({ viewport: { width: 1280, height: 600 } });
			const page = await ctx.newPage();
			const resp = await page.goto(url + '?q=' + encodeURIComponent(query));
			check(resp.status() === 503, 'searchd down: HTTP 503', resp.status());
			check(/\d+/.test(resp.headers()['retry-after'] || ''), 'searchd down: Retry-After');
			const msg = await page.textContent('.message').catch(() => '');
			check(/not available/.test(msg), 'searchd down: a friendly message', msg);
			check(await page.inputValue('input[name=q]') === query, 'searchd down: the query box keeps the query');
			await page.screenshot({ path: `${outdir}/desktop-503.png`, fullPage: false });
		} finally {
			await browser.close();
		}
		return;
	}
	try {
		// ---- desktop, 1280 px ----
		const desk = await browser.newContext({ viewport: { width: 1280, height: 900 } });
		const page = await desk.newPage();
		page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
		let resp = await page.goto(url);
		check(resp.status() === 200, 'the empty page answers 200', resp.status());
		check(await page.$('input[name=q]') !== null, 'the page has a query box');

		// type a query, pick 5 results per page, press Enter
		await page.fill('input[name=q]', query);
		await page.selectOption('select[name=ps]', '5');
		await Promise.all([page.waitForNavigation(), page.press('input[name=q]', 'Enter')]);
		check(await page.inputValue('select[name=ps]') === '5', 'the page keeps 5 results per page selected');
		check(page.url().includes('q=' + encodeURIComponent(query).replace(/%20/g, '+')),
		      'the form sends q', page.url());
		const r1 = await results(page);
		check(r1.length === 5, '5 results are shown', r1.length);
		const stats = await page.textContent('.stats').catch(() => '');
		check(/Results 1.\d+ of about (\d+ sites? \(\d+ pages? matched\)|\d+ pages? on \d+ sites?) for/.test(stats.replace(/\s+/g, ' ')),
		      'the result count names sites and the pages they matched', stats);
		check(new RegExp('Words: ' + query.split(' ')[0] + ': \\d+ pages?, \\d+ times?').test(stats.replace(/\s+/g, ' ')),
		      'the word statistics are labelled', stats);
		check(/\d+\.\d+ seconds/.test(stats), 'the search time is shown', stats);
		check(r1.some((r) => /<b>/i.test(r.snippet)), 'snippets highlight the query word',
		      r1.map((r) => r.snippet).join(' | ').slice(0, 300));
		check(r1.every((r) => /^https?:\/\//.test(r.href)), 'result titles link to the pages');
		const meta = await page.$$eval('article.result .meta', (ms) => ms.map((m) => m.textContent));
		check(meta.length > 0 && meta.every((m) => /(bytes|KB)/.test(m)), 'sizes are shown', meta[0]);
		check(meta.some((m) => /\d{4}-\d\d-\d\d/.test(m)), 'dates are shown', meta[0]);
		await page.screenshot({ path: `${outdir}/desktop-results.png`, fullPage: true });

		// page 2
		const next = await page.$('nav.pages a[href*="np=1"]');
		check(next !== null, 'the navigator links to page 2');
		if (next) {
			await Promise.all([page.waitForNavigation(), next.click()]);
			const cur = await page.textContent('nav.pages [aria-current=page]').catch(() => '');
			check(cur.trim() === '2', 'page 2 is the current page', cur);
			const r2 = await results(page);
			check(r2.length > 0, 'page 2 has results', r2.length);
			const s1 = new Set(r1.map((r) => r.href));
			check(r2.every((r) => !s1.has(r.href)), 'page 2 shows other pages than page 1');
			const st2 = await page.textContent('.stats').catch(() => '');
			check(/Results (\d+)/.exec(st2) && Number(/Results (\d+)/.exec(st2)[1]) === r1.length + 1 ||
			      /Results (\d+)/.exec(st2) && Number(/Results (\d+)/.exec(st2)[1]) > 1,
			      'page 2 counts on from page 1', st2);
			await page.screenshot({ path: `${outdir}/desktop-page2.png`, fullPage: true });
		}

		// a cached copy
		const cachedLink = await page.$('article.result a[href*="ch="]');
		check(cachedLink !== null, 'results link to cached copies');
		if (cachedLink) {
			await Promise.all([page.waitForNavigation(), cachedLink.click()]);
			check(await page.$('.cachebar') !== null, 'the cached copy page opens');
			const marks = await page.$$eval('.cache mark', (ms) => ms.map((m) => m.textContent));
			check(marks.length > 0, 'the cached copy highlights the query words', marks.length);
			const text = await page.textContent('.cache').catch(() => '');
			check(text.toLowerCase().includes(query.toLowerCase()), 'the cached copy shows the text',
			      text.slice(0, 100));
			await page.screenshot({ path: `${outdir}/desktop-cached.png`, fullPage: false });
		}

		// <script>alert(1)</script> in q: shown as text, never run
		const xss = '<script>alert(1)</script>';
		resp = await page.goto(url + '?q=' + encodeURIComponent(xss));
		await page.waitForTimeout(300);
		check(await page.inputValue('input[name=q]') === xss, 'the query box shows the script tag as text');
		const scripts = await page.$$eval('script', (s) => s.length);
		check(scripts === 0, 'no script element in the page', scripts);
		const html = await page.content();
		check(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the query comes back escaped');
		// typed into the box as well
		await page.goto(url);
		await page.fill('input[name=q]', xss);
		await Promise.all([page.waitForNavigation(), page.press('input[name=q]', 'Enter')]);
		await page.waitForTimeout(300);
		check(await page.inputValue('input[name=q]') === xss, 'typed: the query box keeps it as text');
		// a page of the index whose title and text hold markup as text
		if (process.env.HOSTILE_QUERY) {
			await page.goto(url + '?q=' + encodeURIComponent(process.env.HOSTILE_QUERY));
			await page.waitForTimeout(300);
			const titles = await page.$$eval('article.result h2', (hs) => hs.map((h) => h.textContent));
			check(titles.some((t) => t.includes('<script>alert(3)</script>')),
			      'an indexed title holding <script> shows as text', titles.join(' | '));
			await page.screenshot({ path: `${outdir}/desktop-hostile.png`, fullPage: false });
		}
		check(dialogs.length === 0, 'no dialog fired', dialogs.join(','));
		await desk.close();

		// ---- phone, 390 px ----
		const phone = await browser.newContext({ viewport: { width: 390, height: 844 },
			deviceScaleFactor: 2, isMobile: true, hasTouch: true });
		const pp = await phone.newPage();
		pp.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
		await pp.goto(url + '?q=' + encodeURIComponent(query));
		const rp = await results(pp);
		check(rp.length > 0, 'phone: results are shown', rp.length);
		const sw = await pp.evaluate(() => document.documentElement.scrollWidth);
		check(sw <= 390, 'phone: no horizontal scrolling', sw);
		const fs = await pp.$eval('article.result h2', (h) => parseFloat(getComputedStyle(h).fontSize));
		check(fs >= 14, 'phone: titles are readable', fs);
		await pp.screenshot({ path: `${outdir}/phone-results.png`, fullPage: false });
		await phone.close();
	} finally {
		await browser.close();
	}
}

run().then(() => process.exit(failed ? 1 : 0)).catch((e) => {
	console.log(`CHECK 0 the browser run: ${String(e && e.stack || e).split('\n').slice(0, 3).join(' / ')}`);
	process.exit(1);
});
