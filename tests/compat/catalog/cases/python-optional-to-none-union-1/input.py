def a(arg: Optional[int]): pass
