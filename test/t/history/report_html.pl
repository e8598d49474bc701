# ranread_report_html() in a real browser: each kind of report (a sweep, a
# stopped batch, a fleet run and a fleet sweep through dblink to this same
# cluster, a write sweep with readers, two sweeps compared), made from tiny
# real runs and written by a non-superuser with psql exactly as the
# reference says (\o with unaligned, tuples-only output), is opened offline
# by headless Chromium: its verdict is in the DOM, no console message, no
# request other than Chromium's own services (a copy of the page without
# its Content-Security-Policy and with an image on the network shows the
# check sees one), a PDF prints, and each chart, laid out alone at a known
# place in a copy of the page, is painted (its box is not blank in the
# screenshot).  Forged strings in the history (markup, a script, a formula,
# 100,000 characters) come out escaped and cut; a batch's WARNINGs are
# listed as it raised them.  A subject that does not
# exist, or two at once, is 22023; a role that may not read the history
# gets 42501.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my ($chromium) = grep { system("command -v $_ >/dev/null 2>&1") == 0 } qw(chromium chromium-browser);
plan skip_all => 'chromium is not installed (scripts/install-deps.sh installs it)' unless $chromium;

my $node = new_node('report_html');
my $dir = PostgreSQL::Test::Utils::tempdir();
$node->safe_psql('postgres', sprintf(q{SELECT ranread_setup('16 MB', log_level => 0); SELECT ranread_setup_writes('2 MB');
	CREATE EXTENSION dblink;
	CREATE SERVER self FOREIGN DATA WRAPPER dblink_fdw OPTIONS (host '%s', port '%s', dbname 'postgres');
	CREATE USER MAPPING FOR CURRENT_USER SERVER self OPTIONS (user '%s');
	CREATE ROLE bench LOGIN;
	GRANT SELECT ON ALL TABLES IN SCHEMA public TO bench;
	GRANT EXECUTE ON FUNCTION ranread_report_html, ranread_sweep_verdict, ranread_compare_sweeps TO bench;
	CREATE ROLE nosy LOGIN;
	GRANT EXECUTE ON FUNCTION ranread_report_html TO nosy;},
	$node->host, $node->port, $node->safe_psql('postgres', 'SELECT current_user')));

# Tiny real runs: two 2-step sweeps, a fleet run and a fleet sweep, a write
# sweep with a reader, and a batch stopped partway.
my $sweep = q{CALL ranread_sweep(start_processes => 1, step_processes => 1, max_processes => 2, iterations => 200)};
$node->safe_psql('postgres', "$sweep; $sweep");
$node->safe_psql('postgres', q{SELECT * FROM ranread_fleet_run(ARRAY['self'], 1, 100)});
$node->safe_psql('postgres', q{CALL ranread_fleet_sweep(ARRAY['self'], 1, 2, iterations => 100, duration => NULL, min_scaling_pct => 0)});
$node->safe_psql('postgres', q{CALL ranread_write_sweep(writers => 1, start_write_rate_iops => 20, max_write_rate_iops => 40,
	duration => '1 s', processes => 1, slo_p99_ms => 1000, slo_write_p99_ms => 1000)});
# (at 100 reads/s: the target's 2,048 units last 20 s, and a run ends once it has read each)
my ($h) = start_psql($node, q{SELECT * FROM ranread_run(1, NULL, duration => '60 s', rate_iops => 100)});
ok(wait_for_readers($node, 1), 'the batch to stop is reading');
sleep 2;
interrupt_run($node, $h, 'stopped');
ok(wait_for_no_workers($node), 'and stopped');

my ($sweep_a, $sweep_b) = split /\n/, $node->safe_psql('postgres', 'SELECT sweep FROM ranread_sweep_runs ORDER BY sweep');
my %n = map { my ($k, $sql) = @$_; $k => $node->safe_psql('postgres', $sql) } (
	[ batch => q{SELECT max(batch) FROM ranread_batches WHERE status = 'stopped'} ],
	[ fleet => 'SELECT min(fleet) FROM ranread_fleet_runs WHERE fleet_sweep IS NULL' ],
	[ fleet_sweep => 'SELECT max(fleet_sweep) FROM ranread_fleet_runs' ],
	[ write_sweep => 'SELECT max(write_sweep) FROM ranread_write_sweeps' ]);
ok($n{$_}, "a $_ to report: $n{$_}") foreach sort keys %n;

# The report of $call, written by $role with psql as docs/reference.md says,
# into $dir/$name.html; the page's text.
sub report_file
{
	my ($name, $call, $role) = @_;
	my $path = "$dir/$name.html";
	my ($ret, $out, $err) = $node->psql('postgres', "\\pset format unaligned\n\\pset tuples_only on\n\\o $path\nSELECT $call;\n\\o\n",
		extra_params => [ '-U', $role // 'bench' ]);
	is($ret, 0, "$name: psql wrote it as " . ($role // 'bench')) or diag($err);
	return slurp_file($path);
}

# Chromium, headless and offline (every host name fails to resolve), on the page $path.
sub chromium
{
	my ($path, @args) = @_;
	my ($out, $err) = ('', '');
	local $ENV{HOME} = $dir;
	my @cmd = ($chromium, '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync',
		'--disable-background-networking', '--disable-component-update', '--disable-default-apps', '--hide-scrollbars',
		'--host-resolver-rules=MAP * ~NOTFOUND', "--user-data-dir=$dir/chromium", '--enable-logging=stderr', '--v=0',
		@args, "file://$path");
	IPC::Run::run(\@cmd, '<', \undef, '>', \$out, '2>', \$err, IPC::Run::timeout(300));
	return ($out, $err);
}

# The URLs of the requests in a net log that are not the page itself nor
# Chromium's own services (update checks, time, accounts: Google's hosts).
sub page_requests
{
	my ($netlog, $path) = @_;
	my %urls = map { $_ => 1 } slurp_file($netlog) =~ /"url":"([^"]*)"/g;
	return grep { $_ ne "file://$path" && !m{^https?://[a-z0-9.-]*\.(?:google\.com|googleapis\.com|gvt1\.com|gstatic\.com)/} }
	  sort keys %urls;
}

# Open $name's page: DOM, console, requests, print, screenshot; then its
# charts alone, each at a known place, each painted.
sub check_page
{
	my ($name, $html, $verdict, $charts) = @_;
	my $path = "$dir/$name.html";
	my ($dom, $log) = chromium($path, '--window-size=1280,2000', "--screenshot=$path.png", "--print-to-pdf=$path.pdf",
		'--no-pdf-header-footer', "--log-net-log=$path.net.json", '--dump-dom');
	my ($section) = $dom =~ m{<section id="verdict">(.*?)</section>}s;
	like($section // '', $verdict, "$name: the verdict is in the DOM");
	is(join("\n", grep { /CONSOLE/ } split /\n/, $log), '', "$name: no console message");
	is(join(' ', page_requests("$path.net.json", $path)), '', "$name: no request leaves the page");
	ok(-s "$path.pdf" > 1000 && slurp_file("$path.pdf") =~ /^%PDF-/, "$name: it prints (a PDF of " . (-s "$path.pdf") . ' bytes)');
	my (undef, undef, $share) = png_facts("$path.png", 0, 400);   # its title and verdict
	cmp_ok($share, '>=', 0.01, sprintf('%s: the page is painted (%.1f%% not white)', $name, 100 * $share));

	my @figures = $html =~ /<figure class="chart" id="chart-(\d+)">/g;
	is(scalar(@figures), $charts, "$name: $charts charts");
	return unless @figures;
	# each chart 480 pixels wide (240 high) at 260 * (i - 1) from the top: few pixels for Perl to decode
	my $css = 'body{margin:0;padding:0;max-width:none}body>:not(#charts),#charts>:not(figure),figcaption{display:none}'
	  . 'figure.chart{position:absolute;left:0;margin:0;width:480px}figure.chart svg{border:0}'
	  . join('', map { sprintf('#chart-%d{top:%dpx}', $_, 260 * ($_ - 1)) } @figures);
	(my $alone = $html) =~ s{</head>}{<style>$css</style></head>};
	open(my $fh, '>', "$path.charts.html") or die "could not write $path.charts.html: $!";
	print $fh $alone;
	close $fh;
	chromium("$path.charts.html", '--window-size=480,' . 260 * scalar(@figures), "--screenshot=$path.charts.png");
	foreach my $i (@figures)
	{
		my (undef, undef, $painted, $colours) = png_facts("$path.charts.png", 260 * ($i - 1), 260 * ($i - 1) + 240);
		ok($painted >= 0.02 && $colours >= 3,
			sprintf('%s: chart %d is painted (%.1f%% not white, %d colours)', $name, $i, 100 * $painted, $colours));
	}
	return;
}

my %pages = (
	sweep => [ "ranread_report_html($sweep_a)", qr/Sweep $sweep_a \(completed.*Highest IOPS:/s, 3 ],
	batch => [ "ranread_report_html(batch => $n{batch})", qr/Batch $n{batch} \(stopped, smgr on ranread_target/, 2 ],
	fleet => [ "ranread_report_html(fleet => $n{fleet})", qr/Fleet run $n{fleet} \(completed, 1 servers/, 0 ],
	fleet_sweep => [ "ranread_report_html(fleet_sweep => $n{fleet_sweep})", qr/Fleet sweep $n{fleet_sweep}: \d+ runs.*Highest IOPS/s, 1 ],
	write_sweep => [ "ranread_report_html(write_sweep => $n{write_sweep})", qr/Write sweep $n{write_sweep} \((?:completed|stopped), 1 writers/, 2 ],
	compare => [ "ranread_report_html($sweep_a, compare_to => $sweep_b)", qr/Sweep $sweep_a \(A\).*B: Sweep $sweep_b/s, 2 ]);
foreach my $name (sort keys %pages)
{
	my ($call, $verdict, $charts) = @{ $pages{$name} };
	my $html = report_file($name, $call);
	like($html, qr/\A<!DOCTYPE html>\n.*<meta http-equiv="Content-Security-Policy" content="default-src 'none'/s,
		"$name: an HTML document that loads nothing");
	unlike($html, qr/<script|<link|<img|<iframe|\@import|(?:src|href)="(?!#)/, "$name: no script and no resource");
	like($html, qr{<section id="settings">.*ranread version</td><td>1\.4}s, "$name: its settings") unless $name =~ /^fleet/;
	check_page($name, $html, $verdict, $charts);
}

# The WARNINGs a run raised are its report's, as raised: 3,000 reads of 2,048 units re-read 952.
my $warned = $node->safe_psql('postgres', q{SELECT batch FROM ranread_run(2, 1500, allow_rereads => true)});
like(report_file('warned', "ranread_report_html(batch => $warned)"),
	qr{<ul id="warnings">\n<li>Batch $warned: 32% of this run&apos;s reads will re-read a unit read earlier in the run</li>},
	'a batch that WARNed: its report lists the WARNING it raised');

# A phone's width: the page is laid out (not blank) within 390 pixels.
chromium("$dir/sweep.html", '--window-size=390,844', "--screenshot=$dir/phone.png");
my ($width, undef, $phone) = png_facts("$dir/phone.png", 0, 400);
ok($width == 390 && $phone >= 0.01, sprintf('on a phone: painted at %d pixels wide (%.1f%% not white)', $width, 100 * $phone));

# The request check sees a request: the page without its policy, with an image on the network.
(my $leak = slurp_file("$dir/sweep.html")) =~ s{<meta http-equiv="Content-Security-Policy"[^>]*>}{};
$leak =~ s{</body>}{<img src="http://192.0.2.1/leak.png"></body>};
open(my $fh, '>', "$dir/leak.html") or die "could not write $dir/leak.html: $!";
print $fh $leak;
close $fh;
chromium("$dir/leak.html", "--log-net-log=$dir/leak.net.json", '--dump-dom');
is(join(' ', page_requests("$dir/leak.net.json", "$dir/leak.html")), 'http://192.0.2.1/leak.png',
	'the request check sees an image loaded from the network');

# Forged strings: markup, a script, a formula and 100,000 characters.
$node->safe_psql('postgres', qq{
	UPDATE ranread_batches SET device = '<script>alert(1)</script>', file_system = '=HYPERLINK("http://evil.example/","x")',
		kernel = repeat('k', 100000) WHERE sweep = $sweep_b;
	UPDATE ranread_write_sweeps SET verdict = '<img src=x onerror=alert(1)> ' || repeat('&', 100000)});
my $forged = report_file('forged', "ranread_report_html($sweep_b)");
unlike($forged, qr/<script>alert|=HYPERLINK\("/, 'forged: the script and the formula are escaped');
like($forged, qr/&lt;script&gt;alert\(1\)&lt;\/script&gt;/, 'forged: the markup is shown as text');
like($forged, qr/k{200}&#x2026; \(99800 characters left out\)/, 'forged: 100,000 characters cut at 200');
cmp_ok(length($forged), '<', 100_000, 'forged: the page stays small (' . length($forged) . ' bytes)');
my $forged_ws = report_file('forged_write_sweep', "ranread_report_html(write_sweep => $n{write_sweep})");
unlike($forged_ws, qr/<img/, 'forged: the verdict\'s markup is escaped');
like($forged_ws, qr/&lt;img src=x onerror=alert\(1\)&gt; (?:&amp;){171}&#x2026; \(99829 characters left out\)/,
	'forged: the verdict shown as text, cut at 200 characters');
my ($dom) = chromium("$dir/forged.html", '--dump-dom');
unlike($dom, qr/<script|<img/, 'forged: the browser made no element of them');

# Bad subjects and a role that may not read the history.
foreach my $case ([ "ranread_report_html(batch => 999999)", 'bench', '22023', 'batch 999999 does not exist' ],
	[ "ranread_report_html($sweep_a, batch => $n{batch})", 'bench', '22023', 'a report has one subject' ],
	[ "ranread_report_html(batch => $n{batch}, compare_to => $sweep_a)", 'bench', '22023', 'a report has one subject' ],
	[ "ranread_report_html($sweep_a, compare_to => 999999)", 'bench', '22023', "or sweep 999999 does not exist" ],
	[ "ranread_report_html($sweep_a)", 'nosy', '42501', 'permission denied' ])
{
	my ($call, $role, $state, $message) = @$case;
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT $call", extra_params => [ '-U', $role, '-v', 'VERBOSITY=verbose' ]);
	is(sqlstate_of($err), $state, "$call as $role: $state");
	like($err, qr/\Q$message\E/, "$call as $role: $message");
}

$node->stop;
done_testing();
