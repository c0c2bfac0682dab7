# Says hello, accepts the match, then at its first decision closes its standard output (the
# protocol channel) and waits: the platform must report a closed stdout (kind protocol), not a
# slow bot.
read -r line
echo '{"type":"hello","protocol":1,"name":"closer","version":"1.0","games":["arschmallows","take4"]}'
read -r line
echo '{"type":"ok"}'
read -r line
exec 1>&-
sleep 60
