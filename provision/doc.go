// Package provision turns an HCL server profile into ops and applies them to
// a host.Host (pyinfra's model: every op first reads facts and says what it
// would change; apply does only that difference).
//
// This comment is the language reference. Keep it true.
//
// # Profile layout
//
// A profile is a directory: every "*.hcl" file directly in it (read in
// file-name order; blocks keep their order inside a file) plus any other
// files it refers to, by convention under "templates/". Shipped profiles live
// in profiles/<name>/ and are embedded in the binary (package profiles);
// --profile-dir loads one from disk. The profile's content hash is
// "sha256:" + SHA-256 over every file under the directory, sorted by path,
// each as "<path>\x00<len>\x00<bytes>"; it changes when any byte does.
//
// Unknown blocks and attributes are errors (with a "Did you mean" hint where
// HCL can guess). Every error is reported, not only the first, as
// "file:line:col: error: summary; detail" or as HCL's text form with the
// source snippet; nothing is applied when there is any error.
//
// # Parts
//
// What several profiles share is written once, as a part: a directory
// "_parts/NAME" beside the profiles, laid out like a profile (its *.hcl
// files and templates/) but without a profile block. profile.uses lists the
// parts a profile takes. Their *.hcl files join the profile's: all of them
// run in file-name order (two files of the same name are an error), so a
// part's "20-site.hcl" runs between the profile's "10-x.hcl" and
// "30-x.hcl". A relative path (file(), templatefile(), template =,
// source =) is looked up in the profile's directory first and then in each
// part in order: a profile replaces a part's template by having its own
// file at the same path. A part may have platform blocks of its own; their
// keys join the profile's for that platform (a key given twice is an
// error), deviations add up, and a platform the profile does not list is
// ignored. The profile's hash covers its parts' files too.
//
// # Top-level blocks
//
//	profile {                       # exactly one
//	  description = "Apache 2.4 event MPM + PHP-FPM"
//	  platforms   = ["debian-12", "debian-13", "almalinux-9"]   # each needs a platform block
//	  aliases     = ["tuned"]                     # other names for --profile
//	  uses        = ["site", "fpm"]               # parts: ../_parts/site, ../_parts/fpm
//	}
//
//	variable "http_port" {          # any number
//	  type        = number          # HCL type expression: string, number, bool,
//	                                # list(string), map(string), object({...}), any
//	  default     = 8080            # no default = required (load fails without a value)
//	  platform_default = { "debian-13" = 8443 }  # the default on those platforms
//	                                # (a -var or -var-file value still wins); var.NAME
//	                                # is then the platform's value everywhere, platform
//	                                # blocks included; each value is validated
//	  description = "port for plain HTTP"
//	  sensitive   = false           # true: value shown as "(sensitive)" in plans,
//	                                # output, errors and host manifests, and so is every
//	                                # field computed from it (functions, templates,
//	                                # locals, numbers: its marks are kept per field);
//	                                # the site, server, teardown, site_files and
//	                                # process_group blocks, when, depends_on, notify and
//	                                # a dynamic for_each refuse it
//	operator_only = false           # true: only the person running wptest sets it
//	                                # (-var, -var-file); an experiment file may pass
//	                                # their -var through (vars = { x = var.y }) but
//	                                # never supply a value of its own. For anything
//	                                # that brings code or bytes onto the machine (a
//	                                # command, a source URL, a package, the hash that
//	                                # vouches for one) or opens the server to others
//	  validation {                  # any number; condition must be true
//	    condition     = var.http_port > 0 && var.http_port < 65536
//	    error_message = "http_port must be between 1 and 65535."
//	  }
//	}
//
//	locals {                        # any number of blocks; evaluated in dependency order
//	  docroot = "/home/${var.site_user}/public_html"
//	}
//
//	platform "debian-12" {          # one per entry of profile.platforms
//	  package_manager = "apt"       # "apt" or "dnf" (used by package ops)
//	  packages   = { apache = "apache2", php_fpm = "php${var.php_version}-fpm" }
//	  paths      = { apache_conf_dir = "/etc/apache2", fpm_pool_dir = "/etc/php/${var.php_version}/fpm/pool.d" }
//	  services   = { apache = "apache2", php_fpm = "php${var.php_version}-fpm" }
//	  values     = { apache_user = "www-data" }   # anything else that differs
//	  deviations = ["uid switching: mpm-itk instead of mod_ruid2"]
//	}
//
//	precondition {                  # any number; evaluated per platform
//	  condition     = var.package_url != ""
//	  error_message = "corehttpd is not public: pass -var package_url=... (or use the caddy profile)."
//	}
//
// The packages, paths, services and values maps must have the same keys in
// every platform block (a key missing on one platform is an error naming
// it), so an op written once is valid on every platform. Platform attributes
// may refer to var.* only (as it is on that platform: platform_default).
//
// A failing precondition does not stop an offline plan (it is listed under
// "blocked" in the plan); apply refuses before any op runs, exit code 2.
//
// # Expressions and namespaces
//
// Everything after the profile block is evaluated once per platform with:
//
//	var.NAME                  variable values (defaults < -var-file < -var)
//	local.NAME                locals
//	platform.name             the platform key, e.g. "debian-12"
//	platform.package_manager  "apt" | "dnf"
//	platform.packages.KEY     package names       (also .paths, .services, .values)
//	platform.deviations       list of strings
//	profile.name              the profile's name
//
// Only deterministic functions exist: abs, base64decode, base64encode, can,
// ceil, chomp, coalesce, compact, concat, contains, distinct, element, file,
// flatten, floor, format, formatlist, indent, join, jsondecode, jsonencode,
// keys, length, lookup, lower, max, merge, min, range, regex, regexall,
// replace, reverse, setunion, sha256, shelljoin, shellquote, slice, sort,
// split, startswith, strcontains, substr, templatefile, title, tobool,
// tolist, tomap, tonumber, toset, tostring, trim, trimprefix, trimspace,
// trimsuffix, try, upper, values, zipmap. There is no timestamp, uuid or
// env. file(path) and templatefile(path, vars) read only inside the profile
// directory (relative to it; "..", absolute paths and symlinks out are
// errors).
//
// # Values in commands
//
// "${...}" in a command pastes text into a script that /bin/sh parses as
// root: a value with a quote, "$(", ";" or a newline in it becomes code.
// Interpolation does not quote by itself (it cannot know whether the text
// lands inside '...', "...", a heredoc or a word of its own, and some
// values are meant as script), so every string variable that reaches a
// command is either validated to a shape with no shell character in it (a
// validation block: a user name, a host name, hex digits) or quoted:
//
//	shellquote(s)     s as one POSIX sh word: unchanged when it has only
//	                  letters, digits and "-_./=:@,+%", else in single
//	                  quotes ('\'' for each '). A NUL byte is an error.
//	shelljoin(list)   each element one word, joined by spaces: an argv
//	                  given as list(string), e.g. a command to run.
//
// The word must stand on its own: never inside '...', "..." or a heredoc
// (there "$(" still runs). Assign it once and use the shell variable in
// double quotes wherever else it is needed:
//
//	run = <<-EOT
//	  url=${shellquote(var.source_url)}
//	  curl -fsSL -o "$tmp/src.c" "$url" || { echo "fetch $url failed" >&2; exit 1; }
//	EOT
//
// A URL that may hold a user and password goes to curl in a config on
// stdin, not in its argv (which ps shows every user of the host), and
// messages name it without its user part (profiles/cpanel-apache's
// build_ruid2 does both):
//
//	printf 'url = "%s"\n' "$(printf '%s' "$url" | sed 's/[\\"]/\\&/g')" | curl -fsSL -K - -o "$tmp/src.c"
//
// Quoting keeps a value one word; it does not make any word a good
// argument (a leading "-" is still an option to curl): validate the
// shape too where it matters. profiles/shellsafe_test.go renders every
// shipped profile with hostile values of each string variable and parses
// every command and shell script with a real shell parser.
//
// dynamic blocks (hcl ext/dynblock) may generate op blocks:
//
//	dynamic "file" {
//	  for_each = var.sites
//	  labels   = ["site_${file.key}"]
//	  content { path = "/etc/x/${file.key}.conf"  content = file.value }
//	}
//
// # Templates
//
// File bodies are HCL templates (the same language as the profile, as in
// Terraform's templatefile): "${expr}" interpolates, "%{ if c }...%{ endif }"
// and "%{ for x in list }...%{ endfor }" control, "~" strips whitespace
// ("%{~ if ~}"). A literal "${" or "%{" is written "$${" / "%%{" (Apache's
// "${APACHE_LOG_DIR}" becomes "$${APACHE_LOG_DIR}"). Files that must be
// copied byte for byte (PHP, binaries) use source = instead of template =.
// A template sees var, local, platform, profile and, as top-level names,
// the keys of the file op's vars map. Template errors are reported at the
// template's own file:line:col with its snippet.
//
// # Ops
//
// Op blocks are named "<kind>.<label>" (e.g. file.site_conf); labels are
// unique per kind (labels are identifiers: letters, digits, "_", "-"). Ops
// run in the order they appear (files in name order,
// blocks in order), moved later only as far as depends_on requires; the
// order is deterministic. Attributes every op has:
//
//	depends_on = ["file.site_conf", "command.a2enmod"]  # run after these ops
//	notify     = ["apache"]     # service labels ("apache" or "service.apache"):
//	                            # when this op changes, the service gets its
//	                            # on_notify action (reload by default) at the end
//	when       = platform.package_manager == "apt"  # false: the op does not exist
//	                                                # on this platform (default true);
//	                                                # references to it are then ignored
//
//	file "site_conf" {
//	  path     = "${platform.paths.apache_conf_dir}/sites-enabled/wptest.conf"  # absolute
//	  template = "templates/site.conf"   # one of template, content, source
//	  # content = "literal ${var.x} body"
//	  # source  = "templates/info.php"   # copied byte for byte, not rendered
//	  vars     = { port = var.http_port } # extra top-level names for the template
//	  mode     = "0644"                   # octal string, default "0644"
//	  owner    = "root"                   # optional: left alone when unset
//	  group    = "root"
//	}
//	  Check: sha256 of the current file, its mode, owner, group.
//	  Apply: atomic upload (host.Put; parent directories created with
//	  mkdir -p) when the bytes differ, else chmod/chown.
//
//	directory "docroot" { path = local.docroot, mode = "0755", owner = "wpsite", group = "wpsite" }
//	  Check: exists as a directory, mode/owner/group. Apply: mkdir -p, chmod, chown.
//
//	link "site" { path = "/etc/apache2/sites-enabled/wptest.conf", target = "../sites-available/wptest.conf" }
//	  Check: readlink. Apply: ln -sfn (replaces a file or a wrong link).
//
//	package "php" {
//	  names = [platform.packages.php_fpm, platform.packages.php_mysql]
//	  state = "present"                # "present" (default) or "absent"
//	}
//	  Check: dpkg-query -W (apt) / rpm -q (dnf) per name. Apply: apt-get
//	  install -y (DEBIAN_FRONTEND=noninteractive, waits for the dpkg lock) /
//	  dnf install -y, only the missing names; remove likewise.
//
//	user "site" {
//	  name   = "wpsite"
//	  system = false
//	  home   = "/home/wpsite"          # optional
//	  shell  = "/bin/bash"             # optional
//	  groups = ["www-data"]            # supplementary groups the user must be in
//	}
//	  Check: getent passwd, id -nG. Apply: useradd (-m for home) / usermod -aG.
//
//	command "enable_mods" {
//	  run     = "a2enmod proxy_fcgi"   # /bin/sh -c on the host
//	  unless  = "apache2ctl -M | grep -q proxy_fcgi"  # skip when this exits 0
//	  only_if = "test -d /etc/apache2"                # run only when this exits 0
//	  creates = "/etc/apache2/mods-enabled/proxy_fcgi.load"  # skip when path exists
//	  stdin   = var.db_password        # for secrets: never put them in run
//	  timeout = "5m"                   # Go duration, default 10m
//	  bake    = true                   # part of a machine image (below); default false
//	}
//	  Check: the guards (all given guards must allow running). A command with no
//	  guard runs on every apply and is always reported as a change.
//	  Apply: run; a non-zero exit stops apply with host, op, exit code and the
//	  last lines of stderr. Ops are idempotent, so rerunning continues.
//	  bake: the command builds or installs software (cpanel-apache's
//	  mod_ruid2): Rendered.Bake runs it, after the package ops before it,
//	  when it bakes a machine image of the profile (the netns driver's
//	  images: provision/cloud/netns/machine), so a machine made from that
//	  image finds it done. Only package ops and such commands are baked.
//
//	service "apache" {
//	  name      = platform.services.apache   # the system's name for it
//	  state     = "running"              # "running" or "stopped"
//	  enabled   = true                   # optional; managed only under systemd
//	                                     # (systemctl enable/disable), else ignored
//	  on_notify = "reload"               # action for notify: "reload" or "restart"
//	  reload_on  = ["file.site_conf"]    # same as notify on those ops
//	  restart_on = ["file.mpm_conf"]
//	  # Commands for hosts without systemd (and to override the defaults):
//	  start   = "apache2ctl start"
//	  stop    = "apache2ctl stop; while [ -e /run/apache2/apache2.pid ]; do sleep 0.1; done"
//	  reload  = "apache2ctl graceful"
//	  restart = "apache2ctl restart"
//	  status  = "apache2ctl status >/dev/null 2>&1 || test -e /run/apache2/apache2.pid && kill -0 $(cat /run/apache2/apache2.pid)"
//	  ready   = "curl -fsS -o /dev/null http://127.0.0.1:8080/"  # polled after start/restart
//	                                     # until it exits 0 (default: the status command)
//	  ready_timeout = "30s"              # default 30s
//	}
//	  Defaults when a command is not given: with systemd (host facts
//	  init = "systemd") "systemctl start|stop|reload|restart NAME" and
//	  "systemctl is-active --quiet NAME"; without it "service NAME
//	  start|stop|reload|restart|status". If start is given but restart is
//	  not, restart = stop then start; if reload is not given but start is,
//	  reload = restart. status must exit 0 exactly when the service runs. A
//	  service with its own start must give stop and status too.
//	  Without systemd, start a daemon with start-stop-daemon and a pidfile:
//	    start  = "start-stop-daemon --start --background --make-pidfile --pidfile /run/x.pid --exec /usr/bin/x -- args"
//	    stop   = "start-stop-daemon --stop --pidfile /run/x.pid --retry TERM/10/KILL/5 --remove-pidfile"
//	    status = "start-stop-daemon --status --pidfile /run/x.pid"
//	    reload = "start-stop-daemon --stop --signal HUP --pidfile /run/x.pid"
//	  Check: status (and is-enabled under systemd). Apply: start or stop.
//	  Notifications are collected during apply and run ONCE per service at the
//	  end, after all ops: restart wins over reload; a service started or
//	  stopped by this apply is not reloaded again for changes made before
//	  that (they are in effect), but is for changes after it (a PHP
//	  extension installed after php-fpm started).
//
// # Checks and facts
//
// Checks prove the profile took effect. They run after all ops and
// notifications, in order, each retried until it passes or its timeout ends.
//
//	check "home" {
//	  timeout  = "20s"                 # retry window, default 10s
//	  http {                           # one of http or command
//	    url               = "http://127.0.0.1:${var.http_port}/style.css"
//	    method            = "GET"      # default GET
//	    headers           = { "Accept-Encoding" = "gzip" }
//	    protocol          = "h1"       # "h1" (default), "h2" (TLS + ALPN), "h2c" (prior knowledge)
//	    insecure          = true       # accept a self-signed certificate (TLS only)
//	    server_name       = "wp.test"  # TLS SNI, default the URL's host
//	    expect_status     = 200        # default 200
//	    expect_header     = { "Server" = "^Apache" }   # header must match the regex
//	    expect_no_header  = ["Content-Encoding"]       # header must be absent
//	    expect_body_regex = "Hello"
//	    expect_protocol   = "HTTP/2.0"                 # negotiated protocol
//	  }
//	  # command { run = "php -v", expect_regex = "^PHP 8", expect_exit = 0 }
//	  #   expect_regex is matched against stdout followed by stderr.
//	}
//
// Checks and facts may have when = ... like ops (no depends_on or notify).
//
// HTTP checks connect from the host's point of view (host.DialContext: over
// the SSH connection for a remote host), so 127.0.0.1 is the server itself.
// HTTP/3 needs UDP and is checked with a command check.
//
//	fact "apache_version" { run = "apache2 -v" }
//
//	fact "php_version" {
//	  run          = "php -r 'echo PHP_VERSION;'"
//	  expect_regex = "^8\\.4\\."        # optional, with deviation: an output that
//	  deviation    = "PHP %s instead of 8.4"   # does not match makes this (%s: the
//	}                                  # output) one of the apply's deviations
//
// Facts are read after the checks and recorded (trimmed stdout) in the apply
// result, for the host manifest; a failing fact is recorded as its error.
// A fact's deviation is decided by what the host runs: plans list the rule
// ("deviation unless fact.X matches RE: ..."), applies the outcome.
//
// # What a profile says of itself
//
// Recorded in the host manifest after every apply, so that the rest of
// wptest never needs to know a profile by name:
//
//	site {                             # at most one: the WordPress site it serves
//	  docroot  = local.docroot         # absolute; where `wptest seed` puts the site
//	  owner    = var.site_user         # owner and group of the site's files
//	  group    = var.site_user
//	  php      = "php"                 # php-cli the seeder runs as the site user
//	  core     = "/usr/share/wordpress" # optional: WordPress core on the host
//	  database = "/etc/wptest/site-db.env"  # optional: root-only file with the
//	                                   # database credentials the profile made
//	                                   # (DB_NAME, DB_USER, DB_PASSWORD, DB_HOST)
//	  rewrite  = "htaccess"            # "htaccess": seeding writes WordPress's
//	                                   # .htaccess; "server": the server routes
//	                                   # permalinks itself
//	}
//
//	process_group "web" {              # any number: what the sampler reports apart
//	  exe   = ["apache2", "httpd"]     # executable (or command) names
//	  users = ["www-data"]             # optional: only processes of these users
//	  when  = ...                      # optional, as on ops
//	}
//
// Every process the groups do not match is counted as "other".
//
//	site_refresh "php_fpm" {           # any number, with a site block: run (as
//	  run = "wptest-svc php8.4-fpm reload"  # root, in order) after seeding wrote
//	}                                  # the site, so the server serves the new
//	                                   # files (OPcache keeps old ones otherwise)
//
//	teardown "firewalld" {             # any number: run (as root, in order)
//	  run  = "wptest-firewall clear"   # by `wptest down` on a machine that
//	  when = ...                       # stays after the run (static, local):
//	}                                  # what must not outlive the run
//
//	site_files "precompressed" {       # any number, with a site block: files the
//	  list   = "wptest-precompress --list ${local.docroot} ${var.site_user}"
//	  remove = "wptest-precompress --remove ${local.docroot} ${var.site_user}"
//	  when   = ...                     # optional, as on ops; the profile makes
//	}                                  # them in the site by commands
//
// The host manifest records the site with the docroot-relative paths of the
// profile's own file, directory and link ops inside the docroot (site.files)
// and its site_files sets. After every apply and every seed, wptest lists
// them (list prints docroot-relative paths, each ended by a NUL byte) with
// each entry's type, mode, owner and hash into
// /var/lib/wptest/site-files.json, bound by the host manifest's site_files
// (its SHA-256); `wptest verify` checks every entry as the profile's. When a
// profile is applied over another, its apply first runs the remove command
// of every set the last profile made that it does not make itself (by name:
// command.retire_site_files_NAME, skipped when list prints nothing). A set
// may not be named "file" (the profile's own file ops). Root runs list and
// remove, as every command; the work in the docroot is the site owner's
// (wptest-precompress re-runs itself as USER), and wptest lists and hashes
// the entries as the owner too: a link the owner planted leads only where
// the owner could reach anyway.
//
//	watch "php-cgi" {                  # any number: files and directories that
//	  paths = ["/etc/php/8.4/cgi/php.ini", "/etc/php/8.4/cgi/conf.d"]  # shape the
//	  when  = ...                      # server's performance but that the
//	}                                  # profile does not write (absolute paths)
//
// After every apply, the host keeps a drift record (hostmanifest.DriftPath,
// root's): the SHA-256 of every file the profile's file ops write and of
// every watched file (a watched directory: each entry in it, one level), a
// copy of each that is at most 1 MiB (none of a file whose content came
// from a sensitive value), and whether the site's database login worked.
// `wptest status` and every group of a run's points compare the live host
// with it and name each change ("/etc/php/8.4/cgi/php.ini (php-cgi) changed
// since up: memory_limit = 128M → 256M").
//
//	server {                           # at most one: the web server the profile runs
//	  services     = ["apache"]        # labels of its own service blocks (state
//	                                   # "running"): restarted for the kit's startup
//	                                   # metric; stopped and disabled when another
//	                                   # profile takes the host
//	  status {                         # optional: a status page the sampler reads
//	    url    = "http://127.0.0.1:${var.http_port}/server-status?auto"  # loopback
//	    format = "apache"              # "apache": mod_status's ?auto text
//	  }
//	  worker_limit = var.max_request_workers  # optional: requests served at once
//	                                   # at most (the kit's worker usage is of this)
//	  protocols    = ["h1", "h2", "h2c", "h3"]  # what its checks prove it serves;
//	                                   # a run marks other protocols' points n/a
//	  ports        = { http = var.http_port, https = var.https_port }  # where it
//	                                   # listens: http for h1/h2c, https for h2/h3
//	                                   # (the run's URLs)
//	  shows        = ["apache_mpm", "apache_version"]  # facts the report shows
//	}                                  # for the profile, in order
//
// The host manifest records the server with each service's system name and
// the restart, stop and status commands the apply used on that host. When a
// profile is applied over another (`wptest up`, `swap`, `run`), its apply
// first stops and disables every service the host manifest names (the last
// profile's server and those it retired) that this profile's server does
// not run itself; a profile never names another profile's services.
//
// # Plan and apply
//
// plan = Check on every op (changes nothing); with no host (plan --platform
// X) no facts are read and every op is shown with its full rendered content.
// apply = for each op in order: Check, then Apply if there is a change; then
// notified reloads/restarts once each; then checks; then facts. A second
// apply reports 0 changes. Any load error, failed precondition, failed op or
// failed check stops with an error (exit 2 for profile errors, 4 for op and
// check failures). All checks run and every failure is reported.
//
// Variable values: defaults < each -var-file (HCL attributes, in order) <
// each -var name=value (in order). A -var value is taken as the literal
// string for string (and any) variables, and parsed as an HCL expression
// for other types (-var port=8080, -var 'sites=["a","b"]'). Setting a
// variable the profile does not declare is an error.
//
// # Preflight
//
// Before `wptest up` (and swap) and `wptest run` change a host, they print
// one screen: its platform, SELinux mode, firewalld state, init system,
// free memory and disk (host facts and /proc/meminfo, df), and what the
// profile will change about SELinux and firewalld. Those are the ops
// labelled selinux_* and firewalld_* (e.g. command.selinux_site_contexts,
// command.firewalld_ports): name such ops so. Each is checked on the host
// as plan would check it (its guards run, nothing changes), so the screen
// says which would run now and which are done.
//
// # Command line
//
//	wptest profiles [-o json] [--profile-dir D]
//	wptest plan  (--profile P | --profile-dir D) (--platform X | --target T) [-var k=v]... [-var-file f]... [-o json]
//	wptest apply (--profile P | --profile-dir D) --target T [-var k=v]... [-var-file f]... [-o json]
//
// T is "local" or "ssh://user@host:port" (with --known-hosts FILE, and
// --identity KEY or $SSH_AUTH_SOCK). Reports go to stdout; progress
// ("[host] op: message") and errors to stderr. --compact-errors prints
// profile errors as "file:line:col: error: ..." lines instead of snippets.
//
// # Go API
//
//	p, diags := provision.Load(fsys, dir, provision.Vars{Files: ..., Args: []string{"port=8080"}})
//	// on error: provision.WriteDiagnostics(w, p.Files(), diags, compact)
//	r, diags := p.Render("debian-12")            // ops for one platform
//	rep := r.Offline()                           // no host
//	rep, err := r.Plan(ctx, h, progress)         // Check only
//	rep, err := r.Apply(ctx, h, progress)        // Check + Apply, notify, checks, facts
//	pf, err := r.Preflight(ctx, h, facts)        // the one-screen preflight; pf.WriteText(w)
//	hdr, diags := provision.ReadHeader(fsys, dir) // profile block only (listings, aliases)
//
// p.Hash is the content hash; rep (a *Report) marshals to the -o json form.
package provision
