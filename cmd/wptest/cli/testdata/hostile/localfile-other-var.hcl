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
# A local file in a variable that is not operator_only.
profile "caddy" {
  vars = { server_name = "local+file://@KEY@" } # <- refused
}
