dynamic "directory" {
  for_each = ["bin", "etc", "run", "state", "www"]
  labels   = [directory.value]
  content {
    path = "${var.root}/${directory.value}"
    mode = directory.value == "etc" ? "0750" : "0755"
  }
}

file "server" {
  path   = "${var.root}/bin/demo-server.py"
  source = "templates/demo-server.py"
  mode   = "0755"
}

file "config" {
  path     = local.conf
  template = "templates/demo.json.tmpl"
  vars     = { port = var.port }
  mode     = "0600"
}

file "index" {
  path    = "${var.root}/www/index.html"
  content = "<title>${var.title}</title>\n"
}

link "current" {
  path   = "${var.root}/current"
  target = "${var.root}/www"
}

command "init_db" {
  run     = "printf 'schema 1\\n' > ${local.state}/db"
  creates = "${local.state}/db"
}

command "greeting_mark" {
  run    = "printf '%s\\n' ${jsonencode(var.greeting)} > ${local.state}/greeting"
  unless = "grep -qxF ${jsonencode(var.greeting)} ${local.state}/greeting"
}

command "step" {
  run     = var.fail ? "echo 'step: disk on fire' >&2; exit 3" : "touch ${local.state}/step-ok"
  creates = "${local.state}/step-ok"
  depends_on = ["command.init_db"]
}

service "demo" {
  name       = "wptest-demo"
  state      = "running"
  start      = "${platform.paths.ssd} --start --background --make-pidfile --pidfile ${local.pidfile} --exec ${local.python} -- ${var.root}/bin/demo-server.py ${local.conf}"
  stop       = "${platform.paths.ssd} --stop --pidfile ${local.pidfile} --retry TERM/5/KILL/5 --remove-pidfile --oknodo"
  status     = "${platform.paths.ssd} --status --pidfile ${local.pidfile}"
  reload     = "${platform.paths.ssd} --stop --signal HUP --pidfile ${local.pidfile}"
  ready      = "${local.python} -c 'import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=2)' http://127.0.0.1:${var.port}/health"
  reload_on  = ["file.config"]
  restart_on = ["file.server"]
}

check "greeting" {
  timeout = "15s"
  http {
    url               = "http://127.0.0.1:${var.port}/"
    expect_status     = 200
    expect_header     = { "X-Demo-Greeting" = "^${var.greeting}$" }
    expect_no_header  = ["Content-Encoding"]
    expect_body_regex = "^${var.greeting}\n$"
  }
}

check "marks" {
  command {
    run          = "cat ${local.state}/greeting ${local.state}/db"
    expect_regex = "^${var.greeting}\nschema 1\n$"
  }
}


# What the demo says of its server, for the host manifest.
server {
  services  = ["demo"]
  protocols = ["h1"]
  shows     = ["python"]
}
