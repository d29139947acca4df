def main():
    print(1)
    print("two")
    eval(s)
