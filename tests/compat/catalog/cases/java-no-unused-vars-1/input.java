String unused = "unused";
String used = "used";
System.out.println(used);
