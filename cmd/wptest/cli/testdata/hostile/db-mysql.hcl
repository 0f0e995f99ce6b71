experiment "hostile" {
  http_port  = 8080
  https_port = 8443
}
machines "local" {}
fixture "minimal" {
  seed = 1
}
scenario "p" {
  kind     = "page"
  visitors = [1]
  duration = "1s"
}
# The site's database user given ALL on MariaDB's grant tables.
profile "caddy" {
  vars = { db_name = "mysql" } # <- refused
}
