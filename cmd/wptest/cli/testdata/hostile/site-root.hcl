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
# PHP as root, root's shell made nologin.
profile "caddy" {
  vars = { site_user = "root" } # <- refused
}
