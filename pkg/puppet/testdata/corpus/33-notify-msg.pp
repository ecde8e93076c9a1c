notify { "c33 title": message => "c33 message" }
notify { "c33 plain": }
notify { "c33 warn": message => "w", loglevel => warning }
